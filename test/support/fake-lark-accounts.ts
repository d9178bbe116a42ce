// The parts of Lark's (Feishu's) accounts and OAuth servers that Warren's Lark integration uses,
// for one app, served by the Feishu stand-in (fake-feishu.ts): the app registration flow
// (`/oauth/v1/app/registration`, begin and poll, form-encoded), the OAuth device authorization
// (`/oauth/v1/device_authorization`, then `/open-apis/authen/v2/oauth/token` polled with the
// device_code grant) and `/open-apis/authen/v1/user_info`. The test plays the user in the
// browser: it approves (or denies) a user code the API handed out.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

export interface FakeLarkAccounts {
  /** The user approves the app registration shown with `userCode`: polls hand out the app's id and secret. */
  approveRegistration(userCode: string): void;
  /** The Lark user `openId` approves the authorization shown with `userCode`. */
  approveDevice(userCode: string, openId: string, name: string): void;
  denyDevice(userCode: string): void;
  /** Answers the request when it is one of these servers' paths; false when it is not. */
  handle(method: string, path: string, body: Record<string, unknown>, authorization: string | undefined, res: ServerResponse): boolean;
}

interface Flow {
  user_code: string;
  approved: { open_id: string; name: string } | null;
  denied: boolean;
}

export function fakeLarkAccounts(appId: string, appSecret: string): FakeLarkAccounts {
  const registrations = new Map<string, Flow>();
  const devices = new Map<string, Flow>();
  const tokens = new Map<string, { open_id: string; name: string }>();
  let next = 1;
  const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const byUserCode = (flows: Map<string, Flow>, userCode: string) => {
    const flow = [...flows.values()].find((f) => f.user_code === userCode);
    if (!flow) throw new Error(`no flow shows user code ${userCode}`);
    return flow;
  };
  /** A new flow: its device code (the user code is `<PREFIX>-<n>`). */
  const begin = (flows: Map<string, Flow>, prefix: string): string => {
    const n = next++;
    const device = `${prefix}-device-${n}-${randomUUID()}`;
    flows.set(device, { user_code: `${prefix.toUpperCase()}-${n}`, approved: null, denied: false });
    return device;
  };

  return {
    approveRegistration: (userCode) => {
      byUserCode(registrations, userCode).approved = { open_id: 'ou_registrar', name: 'Registrar' };
    },
    approveDevice: (userCode, openId, name) => {
      byUserCode(devices, userCode).approved = { open_id: openId, name };
    },
    denyDevice: (userCode) => {
      byUserCode(devices, userCode).denied = true;
    },
    handle(method, path, body, authorization, res) {
      if (method === 'POST' && path === '/oauth/v1/app/registration') {
        if (body.action === 'begin') {
          const device = begin(registrations, 'reg');
          json(res, 200, { device_code: device, user_code: registrations.get(device)?.user_code, verification_uri: 'https://open.feishu.cn/page/cli', expires_in: 300, interval: 1 });
        } else if (body.action === 'poll') {
          const flow = registrations.get(String(body.device_code));
          if (!flow) json(res, 400, { error: 'invalid_grant', error_description: 'unknown device_code' });
          else if (!flow.approved) json(res, 400, { error: 'authorization_pending' });
          else json(res, 200, { client_id: appId, client_secret: appSecret, user_info: { open_id: flow.approved.open_id, tenant_brand: 'feishu' } });
        } else json(res, 400, { error: 'invalid_request', error_description: 'unknown action' });
        return true;
      }
      if (method === 'POST' && path === '/oauth/v1/device_authorization') {
        const basic = Buffer.from(`${appId}:${appSecret}`).toString('base64');
        if (body.client_id !== appId || (body.client_secret !== appSecret && authorization !== `Basic ${basic}`)) json(res, 401, { error: 'invalid_client', error_description: 'client authentication failed' });
        else {
          const device = begin(devices, 'auth');
          const userCode = devices.get(device)?.user_code;
          json(res, 200, { device_code: device, user_code: userCode, verification_uri: 'https://accounts.feishu.cn/oauth/v1/device/verify', verification_uri_complete: `https://accounts.feishu.cn/oauth/v1/device/verify?user_code=${userCode}`, expires_in: 240, interval: 5 });
        }
        return true;
      }
      if (method === 'POST' && path === '/open-apis/authen/v2/oauth/token') {
        const flow = devices.get(String(body.device_code));
        if (body.grant_type !== 'urn:ietf:params:oauth:grant-type:device_code' || body.client_id !== appId || body.client_secret !== appSecret) json(res, 400, { error: 'invalid_client' });
        else if (!flow) json(res, 400, { error: 'invalid_grant', error_description: 'unknown device_code' });
        else if (flow.denied) json(res, 400, { error: 'access_denied', error_description: 'The user denied the authorization.' });
        else if (!flow.approved) json(res, 400, { error: 'authorization_pending' });
        else {
          const token = `u-${randomUUID()}`;
          tokens.set(token, flow.approved);
          devices.delete(String(body.device_code));
          json(res, 200, { code: 0, access_token: token, token_type: 'Bearer', expires_in: 7200, refresh_token: `r-${randomUUID()}`, scope: '' });
        }
        return true;
      }
      if (method === 'GET' && path === '/open-apis/authen/v1/user_info') {
        const user = tokens.get(/^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '');
        if (!user) json(res, 401, { code: 99991668, msg: 'user access token invalid' });
        else json(res, 200, { code: 0, msg: 'success', data: { open_id: user.open_id, name: user.name } });
        return true;
      }
      return false;
    },
  };
}
