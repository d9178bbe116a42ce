// Chat-platform credentials saved from the UI are sealed with AES-256-GCM (#31): a value opens
// only with the same key and for the same platform and field, and any change to it is caught.
import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/channels/channels.js';

const KEY = 'c4'.repeat(32);
const box = createSecretBox(KEY);

describe('channel secret box', () => {
  it('seals a value that opens again, differently each time, with no plaintext in it', () => {
    const one = box.seal('123456:bot-token', 'telegram.bot_token');
    const two = box.seal('123456:bot-token', 'telegram.bot_token');
    expect(one).toMatch(/^v1:[\w-]+:[\w-]+:[\w-]+$/);
    expect(one).not.toBe(two);
    expect(one).not.toContain('bot-token');
    expect(box.open(one, 'telegram.bot_token')).toBe('123456:bot-token');
    // The same 32 bytes as base64 open it too.
    expect(createSecretBox(Buffer.from(KEY, 'hex').toString('base64')).open(one, 'telegram.bot_token')).toBe('123456:bot-token');
  });

  it('refuses a value sealed for another field, under another key, or altered', () => {
    const sealed = box.seal('secret', 'slack.bot_token');
    expect(() => box.open(sealed, 'slack.app_token')).toThrow(expect.objectContaining({ code: 'WARREN_CHANNEL_SECRET_UNREADABLE' }));
    expect(() => createSecretBox('d5'.repeat(32)).open(sealed, 'slack.bot_token')).toThrow(/WARREN_CHANNEL_SECRETS_KEY changed/);
    const [v, iv, tag, body] = sealed.split(':') as [string, string, string, string];
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => box.open([v, iv, tag, flipped.toString('base64url')].join(':'), 'slack.bot_token')).toThrow(expect.objectContaining({ code: 'WARREN_CHANNEL_SECRET_UNREADABLE' }));
    expect(() => box.open('plain-text', 'slack.bot_token')).toThrow(/not in a form Warren reads/);
  });

  it('without a key seals nothing, naming the variable', () => {
    const none = createSecretBox(undefined);
    expect(none.available).toBe(false);
    expect(() => none.seal('x', 'feishu.app_secret')).toThrow(expect.objectContaining({ code: 'WARREN_CHANNEL_SECRETS_KEY_MISSING', statusCode: 409 }));
  });
});
