// Chat channels in a worker process: for each enabled platform, a lease holder that runs the
// platform's connection when this worker wins the lease. Restart requests (POST
// /api/channels/{name}/restart) arrive over pub/sub; the holder drops its connection and races
// for the lease again. Only what the connections share is built here: the stream hub that
// follows runs, and the upload writer with its conversion sandbox.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RunAdmission } from '../../src/admission/admit-run.js';
import type { CancelSignals } from '../../src/admission/cancel-run.js';
import type { AppConfig } from '../../src/config/app-config.schemas.js';
import { resolveEnvRef } from '../../src/config/load-config.js';
import { createSandbox } from '../../src/convert/sandbox.js';
import { subscribeControl } from '../../src/queue/control.js';
import { isChannelName, type ChannelName } from '../../src/store/channels.js';
import { createFileLocks } from '../../src/store/file-locks.js';
import { isRunSettled } from '../../src/store/records.js';
import { createRunStreamHub } from '../../src/store/run-stream-hub.js';
import type { Stores } from '../../src/store/stores.js';
import { createThreadFiles } from '../../src/store/thread-files.js';
import { conversionLimits } from '../../src/uploads/conversion-limits.js';
import { createUploadWriter } from '../../src/uploads/thread-uploads.js';
import { createChatRuns } from './chat-runs.js';
import { createFeishuAnswers } from './feishu-answers.js';
import { createFeishuApi } from './feishu-api.js';
import { createFeishuConnection } from './feishu-channel.js';
import { startLeaseHolder, type LeaseHolder, type LeaseHolderOptions } from './lease-holder.js';
import { createRunAnswers } from './run-answers.js';
import { createTelegramAnswers } from './telegram-answers.js';
import { createTelegramApi } from './telegram-api.js';
import { createTelegramConnection } from './telegram-channel.js';

export interface ChannelsDeps {
  config: AppConfig;
  home: string;
  stores: Pick<Stores, 'runs' | 'threads' | 'channels' | 'streams'>;
  admission: Pick<RunAdmission, 'admit'>;
  cancelSignals: CancelSignals;
  redis: { command: Redis; blocking(name: string): Redis; subscriber(name: string): Redis };
  /** This worker, as GET /api/channels names the holder. */
  holder: string;
  log: Logger;
}

export interface Channels {
  close(): Promise<void>;
}

const MIB = 1024 * 1024;

/** A platform's secret from config.yaml (`$NAME`), or null (reported) when it is not set. */
async function secretOf(deps: ChannelsDeps, channel: ChannelName, key: string, ref: string | undefined): Promise<string | null> {
  const resolved = resolveEnvRef(ref);
  if (resolved.value) return resolved.value;
  const why = resolved.missing ? `the environment variable ${resolved.missing} (channels.${channel}.${key}) is not set` : `channels.${channel}.${key} is not set`;
  deps.log.child({ channel }).error(`${channel} is enabled but ${why}; it stays off in this worker`);
  await deps.stores.channels.report(channel, { last_error: why }).catch(() => undefined);
  return null;
}

/** Starts a lease holder for each enabled channel; null when none is enabled. */
export async function startChannels(deps: ChannelsDeps): Promise<Channels | null> {
  const { config, stores } = deps;
  const { telegram, feishu } = config.channels;
  const token = telegram.enabled ? await secretOf(deps, 'telegram', 'bot_token', telegram.bot_token) : null;
  const feishuSecret = feishu.enabled ? await secretOf(deps, 'feishu', 'app_secret', feishu.app_secret) : null;
  if (feishu.enabled && feishuSecret && !feishu.app_id) {
    deps.log.error('feishu is enabled but channels.feishu.app_id is not set; it stays off in this worker');
  }
  const feishuOn = feishuSecret !== null && Boolean(feishu.app_id);
  if (token === null && !feishuOn) return null;
  const log = deps.log.child({ channels: true });

  const hub = createRunStreamHub({
    streams: stores.streams,
    blockingConnection: (name) => deps.redis.blocking(`channels-${name}`),
    isSettled: async (threadId, runId) => isRunSettled(await stores.runs.get(threadId, runId)),
    onError: (err) => log.warn({ err }, 'channels: run stream reader error'),
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
    log,
  );
  const maxFileBytes = Math.floor(config.uploads.max_file_mb * MIB);
  const runStatus = async (threadId: string, runId: string) => (await stores.runs.get(threadId, runId))?.status ?? null;
  const chatRunsFor = (channel: ChannelName, settings: { assistant_id: string; recursion_limit: number }) =>
    createChatRuns({
      channel,
      stores,
      admission: deps.admission,
      cancelSignals: deps.cancelSignals,
      assistantId: settings.assistant_id,
      recursionLimit: settings.recursion_limit,
    });
  const holders = new Map<ChannelName, LeaseHolder>();
  /** Redis connections of the platforms' own, closed with the channels. */
  const connections: { disconnect(): void }[] = [];
  const hold = (channel: ChannelName, connect: LeaseHolderOptions['connect']) =>
    holders.set(
      channel,
      startLeaseHolder({ channel, store: stores.channels, holder: deps.holder, leaseMs: config.channels.lease_seconds * 1000, log: deps.log.child({ channel }), connect }),
    );

  if (token !== null) {
    const tlog = deps.log.child({ channel: 'telegram' });
    const chatRuns = chatRunsFor('telegram', telegram);
    const api = createTelegramApi(telegram.base_url, token);
    hold('telegram', async (leaseToken, signal) => {
      const answers = createRunAnswers({
        hub,
        runStatus,
        sink: createTelegramAnswers({ api, files, editIntervalMs: telegram.edit_interval_ms, signal, log: tlog }),
        settle: (owed) => stores.channels.settle('telegram', owed.run_id),
        onError: (err, owed) => tlog.warn({ err, run_id: owed.run_id }, 'telegram: an answer was not sent; it stays owed'),
      });
      const connection = createTelegramConnection({ config: telegram, api, store: stores.channels, chatRuns, answers, uploads, files, maxFileBytes, log: tlog });
      await connection.run(leaseToken, signal);
    });
  }

  if (feishuOn && feishuSecret !== null && feishu.app_id) {
    const flog = deps.log.child({ channel: 'feishu' });
    const credentials = {
      appId: feishu.app_id,
      appSecret: feishuSecret,
      verificationToken: resolveEnvRef(feishu.verification_token).value ?? undefined,
      encryptKey: resolveEnvRef(feishu.encrypt_key).value ?? undefined,
    };
    const chatRuns = chatRunsFor('feishu', feishu);
    const feishuQueue = deps.redis.blocking('channels-feishu-events');
    connections.push(feishuQueue);
    const api = createFeishuApi({ baseUrl: feishu.base_url, appId: credentials.appId, appSecret: credentials.appSecret, log: flog });
    hold('feishu', async (leaseToken, signal) => {
      const cards = createFeishuAnswers({ api, store: stores.channels, files, editIntervalMs: feishu.edit_interval_ms, signal, log: flog });
      const answers = createRunAnswers({
        hub,
        runStatus,
        sink: cards,
        settle: (owed) => stores.channels.settle('feishu', owed.run_id),
        onError: (err, owed) => flog.warn({ err, run_id: owed.run_id }, 'feishu: an answer was not sent; it stays owed'),
      });
      const connection = createFeishuConnection({
        config: feishu,
        credentials,
        api,
        store: stores.channels,
        blocking: feishuQueue,
        chatRuns,
        answers,
        cards,
        uploads,
        files,
        maxFileBytes,
        log: flog,
      });
      await connection.run(leaseToken, signal);
    });
  }

  const subscriber = deps.redis.subscriber('channels');
  await subscribeControl(
    subscriber,
    {
      onChannelRestart: ({ channel }) => {
        if (isChannelName(channel)) holders.get(channel)?.restart();
      },
    },
    log,
  );

  return {
    async close() {
      await Promise.all([...holders.values()].map((h) => h.stop()));
      await hub.close();
      await conversionPool.close();
      subscriber.disconnect();
      for (const connection of connections) connection.disconnect();
    },
  };
}
