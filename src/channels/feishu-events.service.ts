// Feishu's HTTP event callback (channels.feishu.mode `events` or `both`): the request is checked
// (the signature over timestamp, nonce, encrypt_key and body when an encrypt_key is set; the
// verification token always), decrypted (AES-256-CBC, key sha256(encrypt_key), IV the first 16
// bytes), and a message event is recorded in Feishu's inbox in Redis once per event_id (the same
// inbox the long connection records into), where the worker holding the Feishu connection takes
// it. Any API replica can take the callback; nothing it acknowledged is lost if the holder dies,
// since the inbox outlives it.
import { createDecipheriv, createHash } from 'node:crypto';
import { sameSecret } from '../auth/constant-time.js';
import type { FeishuChannelConfig } from '../config/app-config.schemas.js';
import { resolveEnvRef } from '../config/load-config.js';
import type { ChannelStore } from './channel-store.js';
import { ChannelEventMalformedError, ChannelEventsOffError, ChannelSignatureInvalidError, ChannelUnverifiableError } from './channels.errors.js';
import type { FeishuEventHeaders, FeishuEventReply } from './feishu-events.schemas.js';

export interface FeishuEventsServiceDeps {
  config: FeishuChannelConfig;
  inbox: Pick<ChannelStore, 'recordEvent'>;
  env?: NodeJS.ProcessEnv;
}

const MESSAGE_EVENT = 'im.message.receive_v1';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Feishu's encryption: AES-256-CBC with key sha256(encrypt_key); the IV leads the ciphertext. */
export function decryptFeishu(encrypted: string, encryptKey: string): string {
  const bytes = Buffer.from(encrypted, 'base64');
  if (bytes.length < 32) throw new ChannelEventMalformedError('The encrypted event is too short.');
  const key = createHash('sha256').update(encryptKey, 'utf8').digest();
  const decipher = createDecipheriv('aes-256-cbc', key, bytes.subarray(0, 16));
  return Buffer.concat([decipher.update(bytes.subarray(16)), decipher.final()]).toString('utf8');
}

/** X-Lark-Signature: sha256 (hex) of timestamp, nonce, encrypt_key and the raw body. */
export const feishuSignature = (timestamp: string, nonce: string, encryptKey: string, body: string) =>
  createHash('sha256').update(timestamp + nonce + encryptKey + body, 'utf8').digest('hex');

const parseJson = (text: string, what: string): Json => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ChannelEventMalformedError(`${what} is not JSON.`);
  }
  if (!isObject(parsed)) throw new ChannelEventMalformedError(`${what} is not a JSON object.`);
  return parsed;
};

export function createFeishuEventsService(deps: FeishuEventsServiceDeps) {
  const { config } = deps;
  const secret = (ref: string | undefined) => resolveEnvRef(ref, deps.env).value ?? null;

  const open = config.enabled && config.mode !== 'websocket';

  return {
    /** The callback is switched on: its route then takes requests without an API key (Feishu sends none). */
    open,

    async receive(body: string, headers: FeishuEventHeaders): Promise<FeishuEventReply> {
      if (!open) {
        throw new ChannelEventsOffError('Feishu events over HTTP are off: set channels.feishu.enabled and channels.feishu.mode to events or both.');
      }
      const token = secret(config.verification_token);
      const encryptKey = secret(config.encrypt_key);
      // Without a token to check, anyone could post events: the callback stays shut.
      if (token === null) throw new ChannelUnverifiableError('channels.feishu.verification_token is not set, so no event can be verified.');

      let payload = parseJson(body, 'The body');
      if (typeof payload.encrypt === 'string') {
        if (encryptKey === null) throw new ChannelEventMalformedError('The event is encrypted, but channels.feishu.encrypt_key is not set.');
        let plain: string;
        try {
          plain = decryptFeishu(payload.encrypt, encryptKey);
        } catch (err) {
          if (err instanceof ChannelEventMalformedError) throw err;
          throw new ChannelSignatureInvalidError('The event could not be decrypted with channels.feishu.encrypt_key.');
        }
        payload = parseJson(plain, 'The decrypted event');
      } else if (encryptKey !== null) {
        throw new ChannelSignatureInvalidError('channels.feishu.encrypt_key is set, but the event is not encrypted.');
      }

      if (payload.type === 'url_verification') {
        if (typeof payload.token !== 'string' || !sameSecret(payload.token, token)) throw new ChannelSignatureInvalidError('The verification token does not match.');
        if (typeof payload.challenge !== 'string') throw new ChannelEventMalformedError('url_verification without a challenge.');
        return { challenge: payload.challenge };
      }

      const header = isObject(payload.header) ? payload.header : null;
      if (!header || typeof header.token !== 'string' || !sameSecret(header.token, token)) throw new ChannelSignatureInvalidError('The verification token does not match.');
      if (encryptKey !== null) {
        const { 'x-lark-request-timestamp': timestamp, 'x-lark-request-nonce': nonce, 'x-lark-signature': signature } = headers;
        if (!timestamp || !nonce || !signature || !sameSecret(signature, feishuSignature(timestamp, nonce, encryptKey, body))) {
          throw new ChannelSignatureInvalidError('The X-Lark-Signature does not match.');
        }
      }
      if (header.event_type !== MESSAGE_EVENT) return { ok: true };
      const eventId = header.event_id;
      const event = isObject(payload.event) ? payload.event : null;
      if (typeof eventId !== 'string' || eventId === '' || !event || !isObject(event.message)) throw new ChannelEventMalformedError(`${MESSAGE_EVENT} without an event_id or a message.`);
      // The same shape the long connection's events are recorded in.
      await deps.inbox.recordEvent('feishu', eventId, JSON.stringify({ ...header, ...event }));
      return { ok: true };
    },
  };
}

export type FeishuEventsService = ReturnType<typeof createFeishuEventsService>;
