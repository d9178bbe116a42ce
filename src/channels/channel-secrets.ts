// Chat-platform credentials saved from the UI are sealed before they reach Redis: AES-256-GCM
// with a key from the environment (WARREN_CHANNEL_SECRETS_KEY), a fresh 12-byte IV per value,
// and the platform and field name as associated data, so a sealed value copied to another
// field or platform does not open. The key never leaves the process; Redis holds only
// `v1:<iv>:<tag>:<ciphertext>` (base64url).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ChannelSecretsKeyMissingError, ChannelSecretUnreadableError } from './channels.errors.js';

const VERSION = 'v1';
/** The environment variable the key comes from, as errors and the providers list name it. */
export const SECRETS_KEY_VARIABLE = 'WARREN_CHANNEL_SECRETS_KEY';

export interface SecretBox {
  /** False when no key is configured: nothing can be sealed or opened. */
  readonly available: boolean;
  seal(plain: string, context: string): string;
  open(sealed: string, context: string): string;
}

/** The key's 32 bytes from its text (64 hex digits or base64); the env schema checked the form. */
function keyBytes(text: string): Buffer {
  return /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
}

export function createSecretBox(keyText: string | undefined): SecretBox {
  const key = keyText ? keyBytes(keyText) : null;
  const need = (): Buffer => {
    if (key === null) throw new ChannelSecretsKeyMissingError(`${SECRETS_KEY_VARIABLE} is not set, so channel credentials cannot be encrypted at rest. Set it (32 bytes: 64 hex digits or base64) on every API and worker process.`);
    return key;
  };
  return {
    available: key !== null,
    seal(plain, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', need(), iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join(':');
    },
    open(sealed, context) {
      const [version, iv, tag, body] = sealed.split(':');
      if (version !== VERSION || !iv || !tag || body === undefined) throw new ChannelSecretUnreadableError(`A saved ${context} credential is not in a form Warren reads; save it again.`);
      try {
        const decipher = createDecipheriv('aes-256-gcm', need(), Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch (err) {
        if (err instanceof ChannelSecretsKeyMissingError) throw err;
        throw new ChannelSecretUnreadableError(`A saved ${context} credential does not decrypt: ${SECRETS_KEY_VARIABLE} changed since it was saved, or the value was altered. Save it again.`, { cause: err });
      }
    },
  };
}
