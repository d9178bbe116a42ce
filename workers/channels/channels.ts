// Chat channels in a worker process: for each enabled platform, a lease holder that runs the
// platform's connection when this worker wins the lease. Restart requests (POST
// /api/channels/{name}/restart) arrive over pub/sub; the holder drops its connection and races
// for the lease again. Only what the connections share is built here: the stream hub that
// follows runs, and the upload writer with its conversion sandbox.
import type { RedisClient } from '../../src/store/redis.js';
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
import { startLeaseHolder, type LeaseHolder } from './lease-holder.js';
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
  redis: { command: RedisClient; blocking(name: string): RedisClient; subscriber(name: string): RedisClient };
  /** This worker, as GET /api/channels names the holder. */
  holder: string;
  log: Logger;
}

export interface Channels {
  close(): Promise<void>;
}

const MIB = 1024 * 1024;

/** Starts a lease holder for each enabled channel; null when none is enabled. */
export async function startChannels(deps: ChannelsDeps): Promise<Channels | null> {
  const { config, stores } = deps;
  const telegram = config.channels.telegram;
  if (!telegram.enabled) return null;
  const log = deps.log.child({ channel: 'telegram' });
  const token = resolveEnvRef(telegram.bot_token);
  if (!token.value) {
    const why = token.missing ? `the environment variable ${token.missing} (channels.telegram.bot_token) is not set` : 'channels.telegram.bot_token is not set';
    log.error(`telegram is enabled but ${why}; it stays off in this worker`);
    await stores.channels.report('telegram', { last_error: why }).catch(() => undefined);
    return null;
  }

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
  const chatRuns = createChatRuns({
    channel: 'telegram',
    stores,
    admission: deps.admission,
    cancelSignals: deps.cancelSignals,
    assistantId: telegram.assistant_id,
    recursionLimit: telegram.recursion_limit,
  });
  const api = createTelegramApi(telegram.base_url, token.value);

  const holders = new Map<ChannelName, LeaseHolder>();
  holders.set(
    'telegram',
    startLeaseHolder({
      channel: 'telegram',
      store: stores.channels,
      holder: deps.holder,
      leaseMs: config.channels.lease_seconds * 1000,
      log,
      connect: async (leaseToken, signal) => {
        const answers = createRunAnswers({
          hub,
          runStatus: async (threadId, runId) => (await stores.runs.get(threadId, runId))?.status ?? null,
          sink: createTelegramAnswers({ api, files, editIntervalMs: telegram.edit_interval_ms, signal, log }),
          settle: (owed) => stores.channels.settle('telegram', owed.run_id),
          onError: (err, owed) => log.warn({ err, run_id: owed.run_id }, 'telegram: an answer was not sent; it stays owed'),
        });
        const connection = createTelegramConnection({
          config: telegram,
          api,
          store: stores.channels,
          chatRuns,
          answers,
          uploads,
          files,
          maxFileBytes: Math.floor(config.uploads.max_file_mb * MIB),
          log,
        });
        await connection.run(leaseToken, signal);
      },
    }),
  );

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
    },
  };
}
