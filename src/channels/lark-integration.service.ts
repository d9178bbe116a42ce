// DeerFlow's Lark integration, as far as it sets up Warren's Feishu/Lark chat channel. Warren
// runs no lark-cli and installs no Lark skill pack: its Lark client is the channel's own, built
// in, so `install` has nothing to download and the status says so. What the routes do:
//  - config/start|complete: register an app from a browser (Lark's app registration flow) and
//    save its id and secret as the Feishu channel's credentials (sealed, as runtime-config does),
//    which starts the channel on the worker that takes its lease;
//  - config/credentials: the same with an id and secret typed in, checked with Lark first;
//  - auth/start|complete: the caller approves Warren's app in Lark (OAuth device flow), and the
//    Lark account that approved is connected to the caller: its messages to the bot run as them.
// Setting up the app changes the deployment, so config/* and install are for admins; auth/* is
// every user's own. A newer config/start or auth/start voids the caller's older flow (409).
import { setTimeout as delay } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import type { FeishuChannelConfig } from '../config/app-config.schemas.js';
import { resolveEnvRef } from '../config/load-config.js';
import type { Identity } from '../auth/identity.js';
import type { ChannelConnectionsStore } from './channel-connections-store.js';
import type { ChannelConnectionsService } from './channel-connections.service.js';
import { secretContext } from './channel-providers.js';
import type { SecretBox } from './channel-secrets.js';
import { ChannelConfigInvalidError, ChannelNotConfiguredError, LarkFlowSupersededError, LarkPendingError } from './channels.errors.js';
import type { LarkAccounts, LarkBrand, Poll } from './lark-accounts.js';
import type {
  LarkAuthComplete,
  LarkAuthCompleteBody,
  LarkAuthStart,
  LarkAuthStartBody,
  LarkConfigComplete,
  LarkConfigCompleteBody,
  LarkConfigCredentialsBody,
  LarkConfigStart,
  LarkInstall,
  LarkIntegrationStatus,
} from './lark-integration.schemas.js';

export interface LarkIntegrationDeps {
  config: FeishuChannelConfig;
  store: Pick<ChannelConnectionsStore, 'runtimeConfig' | 'connections' | 'bind' | 'larkGeneration' | 'advanceLarkGeneration'>;
  box: SecretBox;
  accounts: LarkAccounts;
  channels: Pick<ChannelConnectionsService, 'saveRuntimeConfig'>;
}

/** The Feishu/Lark app the channel runs with: the one saved from the UI, else config.yaml's. */
interface App {
  app_id: string;
  brand: LarkBrand;
  secret(): string;
}

/** The longest a config/complete call waits for the user's approval, as DeerFlow's does. */
const CONFIG_WAIT_SECONDS = 45;
const BUILT_IN = "Warren's Feishu/Lark client is built in (the chat channel's own); it runs no lark-cli and installs no Lark skill pack.";

export function createLarkIntegrationService(deps: LarkIntegrationDeps) {
  const { store, accounts } = deps;

  async function app(): Promise<App | null> {
    const runtime = await store.runtimeConfig('feishu');
    const sealed = runtime?.values.app_secret;
    if (runtime?.values.app_id && sealed) return { app_id: runtime.values.app_id, brand: runtime.brand ?? 'feishu', secret: () => deps.box.open(sealed, secretContext('feishu', 'app_secret')) };
    const { app_id: appId, app_secret: ref } = deps.config;
    if (!deps.config.enabled || !appId || !ref) return null;
    return {
      app_id: appId,
      brand: 'feishu',
      secret: () => {
        const resolved = resolveEnvRef(ref);
        if (!resolved.value) throw new ChannelNotConfiguredError(`channels.feishu.app_secret names ${resolved.missing ?? 'a variable'}, which is not set in the API's environment.`);
        return resolved.value;
      },
    };
  }

  const requireApp = async (): Promise<App> => {
    const found = await app();
    if (found === null) throw new ChannelNotConfiguredError('No Feishu/Lark app is set up yet: an admin sets one up first (Connect, or Change app).');
    return found;
  };

  async function requireGeneration(identity: Identity, generation: string): Promise<string> {
    if ((await store.larkGeneration(identity.user)) !== generation) throw new LarkFlowSupersededError('This Lark/Feishu set-up was superseded by a newer one; start again.');
    return generation;
  }

  /** Polls a browser flow at its interval until it is done, or gives up at `waitSeconds` (null then). */
  async function until<T>(poll: () => Promise<Poll<T>>, intervalSeconds: number, waitSeconds: number): Promise<T | null> {
    const deadline = Date.now() + waitSeconds * 1000;
    let interval = Math.min(Math.max(intervalSeconds, 1), 10);
    for (;;) {
      const step = await poll();
      if (step.state === 'done') return step.value;
      if (step.state === 'slow_down') interval = Math.min(interval + 5, 30);
      if (Date.now() + interval * 1000 > deadline) return null;
      await delay(interval * 1000);
    }
  }

  async function status(identity: Identity): Promise<LarkIntegrationStatus> {
    const [found, bindings] = await Promise.all([app(), store.connections('feishu')]);
    const mine = bindings.filter((b) => b.owner === identity.user).sort((a, b) => b.created_at.localeCompare(a.created_at))[0];
    const auth = mine
      ? { status: 'authenticated', message: `Your Lark account is connected: its messages to the bot run as ${identity.user}.`, user: mine.external_account_name ?? mine.external_account_id, verified: false }
      : found
        ? { status: 'not_authorized', message: 'Authorize with Lark/Feishu to connect your Lark account to Warren.', user: null, verified: false }
        : { status: 'not_configured', message: 'No Feishu/Lark app is set up yet.', user: null, verified: false };
    return {
      installed: true,
      version: 'built-in',
      manifest_version: null,
      latest_available_version: null,
      runtime_version_mismatch: false,
      app_configured: found !== null,
      app_id: found?.app_id ?? null,
      app_brand: found?.brand ?? null,
      skills_expected: 0,
      skills_installed: 0,
      installed_skills: [],
      enabled_skills: [],
      install_path: '',
      cli: { available: true, path: null, version: 'built-in', error: null },
      auth,
      sandbox_runtime_mode: 'none',
      sandbox_runtime_ready: false,
      sandbox_runtime_detail: BUILT_IN,
    };
  }

  /** Saves an app as the Feishu channel's credentials (which starts it) and voids older flows of the caller. */
  async function saveApp(identity: Identity, appId: string, appSecret: string, brand: LarkBrand): Promise<void> {
    await deps.channels.saveRuntimeConfig(identity, 'feishu', { app_id: appId, app_secret: appSecret }, brand);
  }

  return {
    status,

    async install(identity: Identity): Promise<LarkInstall> {
      return { success: true, installed_skills: [], message: `${BUILT_IN} Nothing to download: set up an app to run the Feishu/Lark channel.`, status: await status(identity) };
    },

    async configStart(identity: Identity, brand: LarkBrand = 'feishu'): Promise<LarkConfigStart> {
      const generation = await store.advanceLarkGeneration(identity.user);
      const registration = await accounts.beginRegistration();
      return {
        verification_url: accounts.registrationPage(brand, registration.user_code),
        device_code: registration.device_code,
        generation,
        expires_in: registration.expires_in,
        interval: registration.interval,
        user_code: registration.user_code,
        brand,
      };
    },

    async configComplete(identity: Identity, body: LarkConfigCompleteBody): Promise<LarkConfigComplete> {
      const generation = await requireGeneration(identity, body.generation);
      const brand = body.brand ?? 'feishu';
      const wait = Math.min(Math.max(body.expires_in ?? 300, 1), CONFIG_WAIT_SECONDS);
      let registered = await until(() => accounts.pollRegistration(brand, body.device_code), body.interval ?? 5, wait);
      // A Lark tenant's app polled on Feishu's host lacks its secret: Lark's host has it.
      if (registered && !registered.client_secret && registered.tenant_brand === 'lark') registered = await until(() => accounts.pollRegistration('lark', body.device_code), body.interval ?? 5, wait);
      if (registered === null) throw new LarkPendingError('Lark app registration is still pending: finish it in the browser, then try again.');
      if (!registered.client_secret) throw new ChannelConfigInvalidError('Lark app registration succeeded but did not return app credentials.');
      await requireGeneration(identity, generation);
      await saveApp(identity, registered.client_id, registered.client_secret, registered.tenant_brand ?? brand);
      return { success: true, message: 'Lark/Feishu connection setup completed.', generation, status: await status(identity) };
    },

    async configCredentials(identity: Identity, body: LarkConfigCredentialsBody): Promise<LarkConfigComplete> {
      const appId = body.app_id.trim();
      const appSecret = body.app_secret.trim();
      if (!appId) throw new ChannelConfigInvalidError('app_id is required.');
      if (!appSecret) throw new ChannelConfigInvalidError('app_secret is required.');
      const brand = body.brand ?? 'feishu';
      await accounts.checkApp(brand, appId, appSecret);
      const generation = await store.advanceLarkGeneration(identity.user);
      await saveApp(identity, appId, appSecret, brand);
      return { success: true, message: 'Lark/Feishu app switched. Reconnect to authorize the new app.', generation, status: await status(identity) };
    },

    async authStart(identity: Identity, body: LarkAuthStartBody): Promise<LarkAuthStart> {
      const found = await requireApp();
      const generation = body.generation ? await requireGeneration(identity, body.generation) : await store.advanceLarkGeneration(identity.user);
      const started = await accounts.beginDeviceAuthorization(found.brand, found.app_id, found.secret(), body.scope ?? null);
      const asked = (body.domains?.length ?? 0) > 0 || body.recommend === true;
      return {
        verification_url: started.verification_url,
        device_code: started.device_code,
        generation,
        expires_in: started.expires_in,
        user_code: started.user_code,
        // Warren asks Lark only who approved; permission domains are lark-cli's, for skills Warren does not run.
        hint: asked ? 'Warren asks Lark only who you are, to connect your Lark account to the bot: the permission domains were not requested.' : null,
      };
    },

    async authComplete(identity: Identity, body: LarkAuthCompleteBody): Promise<LarkAuthComplete> {
      await requireGeneration(identity, body.generation);
      const found = await requireApp();
      const secret = found.secret();
      const token = await until(() => accounts.pollDeviceToken(found.brand, found.app_id, secret, body.device_code), 5, body.wait_timeout_seconds);
      if (token === null) return { success: false, message: 'Lark/Feishu authorization is still pending.', status: await status(identity) };
      const user = await accounts.userInfo(found.brand, token);
      await store.bind('feishu', {
        id: `feishu-${randomUUID()}`,
        provider: 'feishu',
        owner: identity.user,
        external_account_id: user.open_id,
        external_account_name: user.name,
        workspace_id: null,
        created_at: new Date().toISOString(),
      });
      return { success: true, message: 'Lark/Feishu authorization completed.', status: await status(identity) };
    },
  };
}

export type LarkIntegrationService = ReturnType<typeof createLarkIntegrationService>;
