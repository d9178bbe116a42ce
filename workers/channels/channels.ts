// Chat channels in a worker process: for each platform with credentials (config.yaml's, or the
// ones an admin saved in the UI, which win), a lease holder that runs the platform's connection
// when this worker wins the lease. Restart requests (POST /api/channels/{name}/restart) arrive
// over pub/sub, and so do changes of the saved credentials: then every worker stops its holder
// for that platform (the one connected gives the lease back), rebuilds it from Redis, and they
// race for the lease again. What the connections share is built once, on the first platform: the
// stream hub that follows runs, the upload writer with its conversion sandbox, and the way an
// answer is followed and streamed back; each platform adds its protocol (how it receives, posts, edits).
import type { RedisClient, RedisConnections } from '../../src/store/redis.js';
import type { Logger } from 'pino';
import type { RunAdmission } from '../../src/admission/admit-run.js';
import type { CancelSignals } from '../../src/admission/cancel-run.js';
import type { AppConfig } from '../../src/config/app-config.schemas.js';
import { resolveEnvRef } from '../../src/config/load-config.js';
import { createSandbox } from '../../src/convert/sandbox.js';
import { subscribeControl } from '../../src/queue/control.js';
import {
  CHANNEL_NAMES,
  isChannelName,
  PROVIDERS,
  secretContext,
  waitForInbox as waitForInboxOn,
  type ChannelName,
  type InboxEntry,
  type RuntimeConfigRecord,
  type SecretBox,
} from '../../src/channels/channels.js';
import { createFileLocks } from '../../src/store/file-locks.js';
import { isRunSettled } from '../../src/store/records.js';
import { createRunStreamHub, hubListener } from '../../src/streams/run-stream-hub.js';
import type { Stores } from '../../src/stores.js';
import { createThreadFiles } from '../../src/workspace/thread-files.js';
import { conversionLimits } from '../../src/uploads/uploads.js';
import { createUploadWriter } from '../../src/uploads/uploads.js';
import { createChatBindings } from './chat-bindings.js';
import type { ConnectionParts } from './chat-messages.js';
import { createChatRuns } from './chat-runs.js';
import { feishuPoster } from './feishu-answers.js';
import { createFeishuApi, feishuRetry } from './feishu-api.js';
import { createFeishuConnection } from './feishu-channel.js';
import { startLeaseHolder, type LeaseHolder } from './lease-holder.js';
import type { Retry } from './retry.js';
import { createRunAnswers, type RunAnswers } from './run-answers.js';
import { slackPoster } from './slack-answers.js';
import { createSlackApi, slackRetry } from './slack-api.js';
import { createSlackConnection } from './slack-channel.js';
import { createStreamedAnswers, type ChatPoster } from './streamed-answers.js';
import { telegramPoster } from './telegram-answers.js';
import { createTelegramApi } from './telegram-api.js';
import { createTelegramConnection } from './telegram-channel.js';
import { telegramRetry } from './telegram-retry.js';

export interface ChannelsDeps {
  config: AppConfig;
  home: string;
  stores: Pick<Stores, 'runs' | 'threads' | 'channels' | 'channelConnections' | 'streams'>;
  admission: Pick<RunAdmission, 'admit'>;
  cancelSignals: CancelSignals;
  redis: Pick<RedisConnections, 'cluster' | 'command' | 'blocking' | 'subscriber' | 'shardedSubscriber'>;
  /** Opens the credentials saved from the UI (WARREN_CHANNEL_SECRETS_KEY). */
  box: SecretBox;
  /** This worker, as GET /api/channels names the holder. */
  holder: string;
  log: Logger;
}

export interface Channels {
  close(): Promise<void>;
}

const MIB = 1024 * 1024;

/** What the shared parts need of one platform. */
interface Platform {
  poster: ChatPoster;
  retry: Retry;
  editIntervalMs: number;
  /** Runs the platform's connection until `signal` aborts; `token` is the lease's fencing token. */
  run(token: string, signal: AbortSignal, parts: HeldParts): Promise<void>;
}

/** What a connection gets each time its lease is won. */
interface HeldParts {
  answers: RunAnswers;
  /**
   * Waits up to `blockMs` for the channel's inbox entries after `after` (platforms that push
   * events). A blocking read holds its connection: one of its own, opened on the first wait and
   * dropped (which ends a wait) with the lease.
   */
  waitForInbox(after: string, blockMs: number): Promise<InboxEntry[]>;
}

/** What every platform's connection is built with (its answers come with each connection). */
type Shared = Omit<ConnectionParts, 'answers'>;

/**
 * Where a platform's credentials come from this time: config.yaml (`$NAME` references resolved
 * from this process's environment) or the UI (sealed in Redis, opened here).
 */
interface Source {
  kind: 'config.yaml' | 'runtime-config';
  /** Which saved credentials the connection was built from (null: config.yaml's). */
  version: string | null;
  brand: 'feishu' | 'lark';
  /** A credential's value; null (said in the log and the channel's status) when it is missing. */
  value(key: string, ref: string | undefined): Promise<string | null>;
}

/** Says in the log and the channel's status why the platform stays off here. */
async function off(deps: ChannelsDeps, channel: ChannelName, why: string, log: Logger): Promise<null> {
  log.error(`${channel} stays off in this worker: ${why}`);
  await deps.stores.channels.report(channel, { last_error: why }).catch(() => undefined); // only the status page: the log line above says it
  return null;
}

function configSource(deps: ChannelsDeps, channel: ChannelName, log: Logger): Source {
  return {
    kind: 'config.yaml',
    version: null,
    brand: 'feishu',
    async value(key, ref) {
      const resolved = resolveEnvRef(ref);
      if (resolved.value) return resolved.value;
      return off(deps, channel, resolved.missing ? `the environment variable ${resolved.missing} (channels.${channel}.${key}) is not set` : `channels.${channel}.${key} is not set`, log);
    },
  };
}

function runtimeSource(deps: ChannelsDeps, channel: ChannelName, record: RuntimeConfigRecord, log: Logger): Source {
  return {
    kind: 'runtime-config',
    version: record.version,
    brand: record.brand ?? 'feishu',
    async value(key) {
      const saved = record.values[key];
      if (!saved) return off(deps, channel, `the ${key} saved in Settings › Channels is empty`, log);
      if (PROVIDERS[channel].fields.find((f) => f.name === key)?.type !== 'password') return saved;
      try {
        return deps.box.open(saved, secretContext(channel, key));
      } catch (err) {
        return off(deps, channel, err instanceof Error ? err.message : String(err), log);
      }
    },
  };
}

async function telegramPlatform(deps: ChannelsDeps, shared: Shared, source: Source): Promise<Platform | null> {
  const telegram = deps.config.channels.telegram;
  const token = await source.value('bot_token', telegram.bot_token);
  if (token === null) return null;
  const api = createTelegramApi(telegram.base_url, token);
  return {
    poster: telegramPoster(api),
    retry: telegramRetry,
    editIntervalMs: telegram.edit_interval_ms,
    run: (leaseToken, signal, parts) => createTelegramConnection({ ...shared, ...parts, config: telegram, api, store: deps.stores.channels }).run(leaseToken, signal),
  };
}

async function slackPlatform(deps: ChannelsDeps, shared: Shared, source: Source): Promise<Platform | null> {
  // Credentials from the UI are a bot token and an app token: Socket Mode.
  const slack = source.kind === 'runtime-config' ? { ...deps.config.channels.slack, mode: 'socket' as const } : deps.config.channels.slack;
  const botToken = await source.value('bot_token', slack.bot_token);
  const appToken = slack.mode === 'socket' ? await source.value('app_token', slack.app_token) : null;
  if (botToken === null || (slack.mode === 'socket' && appToken === null)) return null;
  const api = createSlackApi(slack.base_url, botToken, shared.log);
  return {
    poster: slackPoster(api),
    retry: slackRetry,
    editIntervalMs: slack.edit_interval_ms,
    run: (leaseToken, signal, parts) => createSlackConnection({ ...shared, ...parts, config: slack, api, appToken, store: deps.stores.channels }).run(leaseToken, signal),
  };
}

async function feishuPlatform(deps: ChannelsDeps, shared: Shared, source: Source): Promise<Platform | null> {
  const configured = deps.config.channels.feishu;
  // Credentials from the UI (or the Lark set-up) hold the long connection, on the app's brand.
  const feishu =
    source.kind === 'runtime-config' ? { ...configured, mode: 'websocket' as const, base_url: source.brand === 'lark' ? configured.lark_base_url : configured.base_url } : configured;
  const appId = await source.value('app_id', feishu.app_id);
  const appSecret = appId === null ? null : await source.value('app_secret', feishu.app_secret);
  if (appId === null || appSecret === null) return null;
  const credentials = {
    appId,
    appSecret,
    verificationToken: resolveEnvRef(feishu.verification_token).value ?? undefined,
    encryptKey: resolveEnvRef(feishu.encrypt_key).value ?? undefined,
  };
  const api = createFeishuApi({ baseUrl: feishu.base_url, appId, appSecret, log: shared.log });
  return {
    poster: feishuPoster(api),
    retry: feishuRetry,
    editIntervalMs: feishu.edit_interval_ms,
    run: (leaseToken, signal, parts) => createFeishuConnection({ ...shared, ...parts, config: feishu, credentials, api, store: deps.stores.channels }).run(leaseToken, signal),
  };
}

const PLATFORMS: Record<ChannelName, (deps: ChannelsDeps, shared: Shared, source: Source) => Promise<Platform | null>> = {
  telegram: telegramPlatform,
  slack: slackPlatform,
  feishu: feishuPlatform,
};

/** What every platform's connections share in this worker, built with the first one. */
interface Common {
  hub: ReturnType<typeof createRunStreamHub>;
  files: ReturnType<typeof createThreadFiles>;
  uploads: ReturnType<typeof createUploadWriter>;
  close(): Promise<void>;
}

function buildCommon(deps: ChannelsDeps): Common {
  const { config, stores } = deps;
  const hub = createRunStreamHub({
    streams: stores.streams,
    listener: (name) => hubListener(deps.redis)(`channels-${name}`),
    isSettled: async (threadId, runId) => isRunSettled(await stores.runs.get(threadId, runId)),
    onError: (err) => deps.log.warn({ err }, 'channels: run stream reader error'),
  });
  const files = createThreadFiles(deps.home);
  const limits = conversionLimits(config.uploads);
  const conversionPool = createSandbox({ ...limits, maxWorkers: config.uploads.max_concurrent_conversions });
  const uploads = createUploadWriter(
    {
      files,
      uploadsLock: createFileLocks(deps.redis.command).threadUploads,
      conversionPool,
      conversion: limits,
      maxConcurrentConversions: config.uploads.max_concurrent_conversions,
    },
    deps.log,
  );
  return {
    hub,
    files,
    uploads,
    async close() {
      await hub.close();
      await conversionPool.close();
    },
  };
}

/** A platform's lease holder here. */
interface Held {
  holder: LeaseHolder;
}

/**
 * Starts a lease holder for each platform with credentials, and follows changes of the
 * credentials saved from the UI for as long as the worker runs.
 */
export async function startChannels(deps: ChannelsDeps): Promise<Channels> {
  const { config, stores } = deps;
  let common: Common | null = null;
  const held = new Map<ChannelName, Held>();
  /** Each platform's latest rebuild, so that two changes in a row apply in order. */
  const rebuilds = new Map<ChannelName, Promise<void>>();
  /** Rebuilds that failed and wait to be tried again. */
  const retries = new Set<NodeJS.Timeout>();
  let closed = false;

  /** The platform's credentials now: the UI's when saved, else config.yaml's when enabled there. */
  async function sourceOf(channel: ChannelName, log: Logger): Promise<Source | null> {
    const record = await stores.channelConnections.runtimeConfig(channel);
    if (record) return runtimeSource(deps, channel, record, log);
    return config.channels[channel].enabled ? configSource(deps, channel, log) : null;
  }

  async function start(channel: ChannelName): Promise<void> {
    const log = deps.log.child({ channel });
    const source = await sourceOf(channel, log);
    if (source === null || closed) return;
    const settings = config.channels[channel];
    common ??= buildCommon(deps);
    const { hub, files, uploads } = common;
    const chatRuns = createChatRuns({
      channel,
      stores,
      admission: deps.admission,
      cancelSignals: deps.cancelSignals,
      assistantId: settings.assistant_id,
      recursionLimit: settings.recursion_limit,
      owner: settings.owner,
    });
    // Saved from the UI: an account answers once it is bound to a Warren user. config.yaml's: the rest run as its owner.
    const bindings = createChatBindings({ channel, store: stores.channelConnections, unboundOwner: source.kind === 'runtime-config' ? null : settings.owner });
    const platform = await PLATFORMS[channel](deps, { chatRuns, bindings, uploads, files, maxFileBytes: Math.floor(config.uploads.max_file_mb * MIB), log }, source);
    if (platform === null) return;
    const holder = startLeaseHolder({
      channel,
      store: stores.channels,
      holder: deps.holder,
      leaseMs: config.channels.lease_seconds * 1000,
      log,
      connect: async (leaseToken, signal) => {
        // A change announced while this worker was not listening (reconnecting) shows here: rebuild rather than run stale credentials.
        if (((await stores.channelConnections.runtimeConfig(channel))?.version ?? null) !== source.version) {
          void rebuild(channel);
          return;
        }
        const answers = createRunAnswers({
          hub,
          runStatus: async (threadId, runId) => (await stores.runs.get(threadId, runId))?.status ?? null,
          sink: createStreamedAnswers({ channel, poster: platform.poster, store: stores.channels, retry: platform.retry, files, editIntervalMs: platform.editIntervalMs, signal, log }),
          settle: (owed) => stores.channels.settle(channel, owed.run_id),
          onError: (err, owed) => log.warn({ err, run_id: owed.run_id }, `${channel}: an answer was not sent; it stays owed`),
        });
        let blocking: RedisClient | null = null;
        const drop = () => blocking?.disconnect();
        signal.addEventListener('abort', drop, { once: true });
        try {
          const waitForInbox = (after: string, blockMs: number) => waitForInboxOn((blocking ??= deps.redis.blocking(`channels-${channel}-inbox`)), channel, after, blockMs);
          await platform.run(leaseToken, signal, { answers, waitForInbox });
        } finally {
          signal.removeEventListener('abort', drop);
          drop();
        }
      },
    });
    held.set(channel, { holder });
  }

  /** Stops the platform's holder here (giving its lease back if it holds it) and builds it again from what Redis says now. */
  function rebuild(channel: ChannelName): Promise<void> {
    const next = (rebuilds.get(channel) ?? Promise.resolve()).then(async () => {
      const current = held.get(channel);
      held.delete(channel);
      await current?.holder.stop();
      await start(channel);
    });
    const settled = next.catch((err: unknown) => {
      // Redis away, most likely: try again a lease later, as a lease holder would.
      deps.log.error({ err, channel }, 'channels: rebuilding a platform failed; trying again');
      if (closed) return;
      const timer = setTimeout(() => {
        retries.delete(timer);
        if (!closed) void rebuild(channel);
      }, config.channels.lease_seconds * 1000);
      retries.add(timer);
    });
    rebuilds.set(channel, settled);
    return settled;
  }

  for (const channel of CHANNEL_NAMES) await rebuild(channel);

  const subscriber = deps.redis.subscriber('channels');
  await subscribeControl(
    subscriber,
    {
      onChannelRestart: ({ channel }) => {
        if (isChannelName(channel)) held.get(channel)?.holder.restart();
      },
      onChannelConfigChanged: ({ channel }) => {
        if (isChannelName(channel) && !closed) void rebuild(channel);
      },
    },
    deps.log,
  );

  return {
    async close() {
      closed = true;
      for (const timer of retries) clearTimeout(timer);
      await Promise.all([...rebuilds.values()]);
      await Promise.all([...held.values()].map((h) => h.holder.stop()));
      await common?.close();
      subscriber.disconnect();
    },
  };
}
