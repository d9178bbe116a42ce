// What the Lark integration asks of Lark's and Feishu's servers: the app registration flow that
// creates an app from a browser (`/oauth/v1/app/registration` on the accounts host, begin then
// poll), a check of an app's id and secret (a tenant_access_token), and the OAuth device
// authorization (RFC 8628) that tells Warren which Lark user approved (`/oauth/v1/device_authorization`,
// `/open-apis/authen/v2/oauth/token`, `/open-apis/authen/v1/user_info`). Only the hosts change
// between Feishu and Lark, and in tests (config.yaml's `channels.feishu.*_url`).
import type { FeishuChannelConfig } from '../config/app-config.schemas.js';
import { LarkRefusedError, LarkUnreachableError } from './channels.errors.js';

export type LarkBrand = 'feishu' | 'lark';

/** One step of a flow that the user finishes in a browser: not yet, not so often, or done. */
export type Poll<T> = { state: 'pending' } | { state: 'slow_down' } | { state: 'done'; value: T };

export interface Registration {
  device_code: string;
  user_code: string;
  expires_in: number | null;
  interval: number | null;
}

export interface RegisteredApp {
  client_id: string;
  /** Absent when a Lark tenant's app was polled on Feishu's host: Lark's host has it. */
  client_secret: string | null;
  tenant_brand: LarkBrand | null;
}

export interface DeviceAuthorization {
  device_code: string;
  user_code: string | null;
  verification_url: string;
  expires_in: number | null;
  interval: number | null;
}

export interface LarkUser {
  open_id: string;
  name: string | null;
}

const TIMEOUT_MS = 20_000;
const GRANT_DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code';

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '');
const int = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : null);
const brandOf = (value: unknown): LarkBrand | null => (value === 'lark' || value === 'feishu' ? value : null);

export function createLarkAccounts(config: Pick<FeishuChannelConfig, 'base_url' | 'accounts_url' | 'lark_base_url' | 'lark_accounts_url'>) {
  const hosts = (brand: LarkBrand) =>
    brand === 'lark' ? { open: config.lark_base_url.replace(/\/$/, ''), accounts: config.lark_accounts_url.replace(/\/$/, '') } : { open: config.base_url.replace(/\/$/, ''), accounts: config.accounts_url.replace(/\/$/, '') };

  /** Sends and reads a JSON object back, whatever the status: Lark puts its refusals in the body. */
  async function send(url: string, init: RequestInit): Promise<Record<string, unknown>> {
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'error' });
    } catch (err) {
      throw new LarkUnreachableError(`Lark could not be reached (${new URL(url).host}): ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    return objectOf(res, url);
  }

  const post = (url: string, body: Record<string, string>, form: boolean, headers: Record<string, string> = {}) =>
    send(url, {
      method: 'POST',
      headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json', ...headers },
      body: form ? new URLSearchParams(body).toString() : JSON.stringify(body),
    });

  async function objectOf(res: Response, url: string): Promise<Record<string, unknown>> {
    const raw = await res.text();
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // Not JSON: said just below, with the status.
    }
    throw new LarkUnreachableError(`Lark answered ${new URL(url).pathname} with HTTP ${res.status} and no JSON object.`);
  }

  /** An OAuth-style answer's error, when it has one: pending and slow_down are steps, the rest refusals. */
  function oauthStep<T>(data: Record<string, unknown>, what: string, done: () => T | null): Poll<T> {
    const error = text(data.error);
    if (error === 'authorization_pending') return { state: 'pending' };
    if (error === 'slow_down') return { state: 'slow_down' };
    if (error) throw new LarkRefusedError(`${what}: ${text(data.error_description) || error}`);
    const value = done();
    if (value === null) throw new LarkRefusedError(`${what}: Lark's answer lacks the fields it should carry.`);
    return { state: 'done', value };
  }

  return {
    hosts,

    /** Starts registering an app from a browser; Lark's CLI starts on Feishu's host for both brands. */
    async beginRegistration(): Promise<Registration> {
      const data = await post(`${hosts('feishu').accounts}/oauth/v1/app/registration`, { action: 'begin', archetype: 'PersonalAgent', auth_method: 'client_secret', request_user_info: 'open_id tenant_brand' }, true);
      if (data.error) throw new LarkRefusedError(`Lark app registration failed: ${text(data.error_description) || text(data.error)}`);
      const registration = { device_code: text(data.device_code), user_code: text(data.user_code), expires_in: int(data.expires_in), interval: int(data.interval) };
      if (!registration.device_code || !registration.user_code) throw new LarkRefusedError('Lark app registration did not return a user_code and device_code.');
      return registration;
    },

    /** The page the user opens to register the app. */
    registrationPage: (brand: LarkBrand, userCode: string) => `${hosts(brand).open}/page/cli?${new URLSearchParams({ user_code: userCode, from: 'cli' }).toString()}`,

    async pollRegistration(brand: LarkBrand, deviceCode: string): Promise<Poll<RegisteredApp>> {
      const data = await post(`${hosts(brand).accounts}/oauth/v1/app/registration`, { action: 'poll', device_code: deviceCode }, true);
      return oauthStep(data, 'Lark app registration', () => {
        const clientId = text(data.client_id);
        if (!clientId) return null;
        const info = data.user_info !== null && typeof data.user_info === 'object' ? (data.user_info as Record<string, unknown>) : {};
        return { client_id: clientId, client_secret: text(data.client_secret) || null, tenant_brand: brandOf(info.tenant_brand) };
      });
    },

    /** Refuses an app id and secret that Lark does not take. */
    async checkApp(brand: LarkBrand, appId: string, appSecret: string): Promise<void> {
      const data = await post(`${hosts(brand).open}/open-apis/auth/v3/tenant_access_token/internal`, { app_id: appId, app_secret: appSecret }, false);
      if (data.code !== 0) throw new LarkRefusedError(`${brand === 'lark' ? 'Lark' : 'Feishu'} refused the app credentials: ${text(data.msg) || `code ${text(data.code)}`}`);
    },

    async beginDeviceAuthorization(brand: LarkBrand, appId: string, appSecret: string, scope: string | null): Promise<DeviceAuthorization> {
      const body: Record<string, string> = { client_id: appId, client_secret: appSecret, ...(scope ? { scope } : {}) };
      const data = await post(`${hosts(brand).accounts}/oauth/v1/device_authorization`, body, true, { authorization: `Basic ${Buffer.from(`${appId}:${appSecret}`).toString('base64')}` });
      if (data.error) throw new LarkRefusedError(`Lark authorization could not start: ${text(data.error_description) || text(data.error)}`);
      const found = {
        device_code: text(data.device_code),
        user_code: text(data.user_code) || null,
        verification_url: text(data.verification_uri_complete) || text(data.verification_uri),
        expires_in: int(data.expires_in),
        interval: int(data.interval),
      };
      if (!found.device_code || !found.verification_url) throw new LarkRefusedError('Lark authorization did not return a verification URL and device code.');
      return found;
    },

    /** One poll of the device flow's token; the approving user's access token once done. */
    async pollDeviceToken(brand: LarkBrand, appId: string, appSecret: string, deviceCode: string): Promise<Poll<string>> {
      const data = await post(`${hosts(brand).open}/open-apis/authen/v2/oauth/token`, { grant_type: GRANT_DEVICE_CODE, device_code: deviceCode, client_id: appId, client_secret: appSecret }, false);
      return oauthStep(data, 'Lark authorization', () => text(data.access_token) || null);
    },

    async userInfo(brand: LarkBrand, accessToken: string): Promise<LarkUser> {
      const body = await send(`${hosts(brand).open}/open-apis/authen/v1/user_info`, { headers: { authorization: `Bearer ${accessToken}` } });
      const data = body.data !== null && typeof body.data === 'object' ? (body.data as Record<string, unknown>) : {};
      if (body.code !== 0 || !text(data.open_id)) throw new LarkRefusedError(`Lark did not tell who authorized: ${text(body.msg) || `code ${text(body.code)}`}`);
      return { open_id: text(data.open_id), name: text(data.name) || null };
    },
  };
}

export type LarkAccounts = ReturnType<typeof createLarkAccounts>;
