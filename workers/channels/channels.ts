// Chat channels in a worker process: for each enabled platform, a lease holder that runs the
// platform's connection when this worker wins the lease. Restart requests (POST
// /api/channels/{name}/restart) arrive over pub/sub; the holder drops its connection and races
// for the lease again. What the connections share is built here once: the stream hub that
// follows runs, the upload writer with its conversion sandbox, and the way an answer is followed
// and streamed back; each platform adds its protocol (how it receives, posts, edits).
import type { RedisClient, RedisConnections } from '../../src/store/redis.js';
import type { Logger } from 'pino';
import type { RunAdmission } from '../../src/admission/admit-run.js';
import type { CancelSignals } from '../../src/admission/cancel-run.js';
import type { AppConfig } from '../../src/config/app-config.schemas.js';
import { resolveEnvRef } from '../../src/config/load-config.js';
import { createSandbox } from '../../src/convert/sandbox.js';
import { subscribeControl } from '../../src/queue/control.js';
import { CHANNEL_NAMES, isChannelName, waitForInbox as waitForInboxOn, type ChannelName, type InboxEntry } from '../../src/channels/channels.js';
import { createFileLocks } from '../../src/store/file-locks.js';
import { isRunSettled } from '../../src/store/records.js';
import { createRunStreamHub, hubListener } from '../../src/streams/run-stream-hub.js';
import type { Stores } from '../../src/stores.js';
import { createThreadFiles } from '../../src/workspace/thread-files.js';
import { conversionLimits } from '../../src/uploads/uploads.js';
import { createUploadWriter } from '../../src/uploads/uploads.js';
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
  stores: Pick<Stores, 'runs' | 'threads' | 'channels' | 'streams'>;
  admission: Pick<RunAdmission, 'admit'>;
  cancelSignals: CancelSignals;
  redis: Pick<RedisConnections, 'cluster' | 'command' | 'blocking' | 'subscriber' | 'shardedSubscriber'>;
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

/** A `$NAME` setting's value; null (said in the log and the channel's status) when it is not set. */
async function secret(deps: ChannelsDeps, channel: ChannelName, key: string, ref: string | undefined, log: Logger): Promise<string | null> {
  const resolved = resolveEnvRef(ref);
  if (resolved.value) return resolved.value;
  const why = resolved.missing ? `the environment variable ${resolved.missing} (channels.${channel}.${key}) is not set` : `channels.${channel}.${key} is not set`;
  log.error(`${channel} is enabled but ${why}; it stays off in this worker`);
  await deps.stores.channels.report(channel, { last_error: why }).catch(() => undefined); // only the status page: the log line above says it
  return null;
}

async function telegramPlatform(deps: ChannelsDeps, shared: Shared): Promise<Platform | null> {
  const telegram = deps.config.channels.telegram;
  const token = await secret(deps, 'telegram', 'bot_token', telegram.bot_token, shared.log);
  if (token === null) return null;
  const api = createTelegramApi(telegram.base_url, token);
  return {
    poster: telegramPoster(api),
    retry: telegramRetry,
    editIntervalMs: telegram.edit_interval_ms,
    run: (leaseToken, signal, parts) => createTelegramConnection({ ...shared, ...parts, config: telegram, api, store: deps.stores.channels }).run(leaseToken, signal),
  };
}

async function slackPlatform(deps: ChannelsDeps, shared: Shared): Promise<Platform | null> {
  const slack = deps.config.channels.slack;
  const botToken = await secret(deps, 'slack', 'bot_token', slack.bot_token, shared.log);
  const appToken = slack.mode === 'socket' ? await secret(deps, 'slack', 'app_token', slack.app_token, shared.log) : null;
  if (botToken === null || (slack.mode === 'socket' && appToken === null)) return null;
  const api = createSlackApi(slack.base_url, botToken, shared.log);
  return {
    poster: slackPoster(api),
    retry: slackRetry,
    editIntervalMs: slack.edit_interval_ms,
    run: (leaseToken, signal, parts) => createSlackConnection({ ...shared, ...parts, config: slack, api, appToken, store: deps.stores.channels }).run(leaseToken, signal),
  };
}

async function feishuPlatform(deps: ChannelsDeps, shared: Shared): Promise<Platform | null> {
  const feishu = deps.config.channels.feishu;
  if (!feishu.app_id) {
    shared.log.error('feishu is enabled but channels.feishu.app_id is not set; it stays off in this worker');
    await deps.stores.channels.report('feishu', { last_error: 'channels.feishu.app_id is not set' }).catch(() => undefined); // only the status page: logged above
    return null;
  }
  const appSecret = await secret(deps, 'feishu', 'app_secret', feishu.app_secret, shared.log);
  if (appSecret === null) return null;
  const credentials = {
    appId: feishu.app_id,
    appSecret,
    verificationToken: resolveEnvRef(feishu.verification_token).value ?? undefined,
    encryptKey: resolveEnvRef(feishu.encrypt_key).value ?? undefined,
  };
  const api = createFeishuApi({ baseUrl: feishu.base_url, appId: credentials.appId, appSecret, log: shared.log });
  return {
    poster: feishuPoster(api),
    retry: feishuRetry,
    editIntervalMs: feishu.edit_interval_ms,
    run: (leaseToken, signal, parts) => createFeishuConnection({ ...shared, ...parts, config: feishu, credentials, api, store: deps.stores.channels }).run(leaseToken, signal),
  };
}

const PLATFORMS: Record<ChannelName, (deps: ChannelsDeps, shared: Shared) => Promise<Platform | null>> = {
  telegram: telegramPlatform,
  slack: slackPlatform,
  feishu: feishuPlatform,
};

/** Starts a lease holder for each enabled channel; null when none is enabled. */
export async function startChannels(deps: ChannelsDeps): Promise<Channels | null> {
  const { config, stores } = deps;
  const enabled = CHANNEL_NAMES.filter((name) => config.channels[name].enabled);
  if (enabled.length === 0) return null;

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

  const holders = new Map<ChannelName, LeaseHolder>();
  for (const channel of enabled) {
    const log = deps.log.child({ channel });
    const settings = config.channels[channel];
    const chatRuns = createChatRuns({
      channel,
      stores,
      admission: deps.admission,
      cancelSignals: deps.cancelSignals,
      assistantId: settings.assistant_id,
      recursionLimit: settings.recursion_limit,
      owner: settings.owner,
    });
    const platform = await PLATFORMS[channel](deps, { chatRuns, uploads, files, maxFileBytes: Math.floor(config.uploads.max_file_mb * MIB), log });
    if (platform === null) continue;
    holders.set(
      channel,
      startLeaseHolder({
        channel,
        store: stores.channels,
        holder: deps.holder,
        leaseMs: config.channels.lease_seconds * 1000,
        log,
        connect: async (leaseToken, signal) => {
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
      }),
    );
  }

  const subscriber = deps.redis.subscriber('channels');
  await subscribeControl(
    subscriber,
    {
      onChannelRestart: ({ channel }) => {
        if (isChannelName(channel)) holders.get(channel)?.restart();
      },
    },
    deps.log,
  );

  return {
    async close() {
      await Promise.all([...holders.values()].map((h) => h.stop()));
      await hub.close();
      await conversionPool.close();
      subscriber.disconnect();
    },
  };
}
