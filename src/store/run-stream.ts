// RunStream: a run's events in a Redis Stream. The worker appends `{event, data}` entries; the
// API replays and follows them. Entry ids are the SSE `id:` values, so any API replica can
// resume a client from the last id it saw.
import { isCluster, type RedisClient } from './redis.js';
import { keys } from './keys.js';
import type { RunFence } from './records.js';
import { loadScripts, requireScript, type ScriptCaller } from './scripts.js';
import { FencedError } from './script-errors.js';
import { StreamBufferFullError } from './store.errors.js';

export interface StreamEntry {
  /** Redis Stream entry id, e.g. `1732200000000-0`. */
  id: string;
  event: string;
  /** The event's data as one line of JSON, ready for the wire. */
  data: string;
}

/**
 * What the run executor needs to publish a run's events, and nothing more. `end` is not
 * appended here: it is part of settling the run (RunStore.finish).
 */
export interface RunStreamWriter {
  /**
   * Appends one event; `dataJson` is one line of JSON. Returns the entry id. Rejects with a
   * WARREN_FENCED refusal (isFenceRefusal) once the writer's attempt no longer holds the run.
   * Events appended without waiting are stored in the order appended.
   */
  append(event: string, dataJson: string): Promise<string>;
  /**
   * Sends every event appended so far now, beside a batch in flight, so that whatever the
   * caller sends next on the same connection reaches Redis after them. False, sending nothing,
   * while the connection is down: the caller waits for the appends to be stored instead.
   */
  sendQueued(): boolean;
  /**
   * Drops every event not sent to Redis yet, rejecting their appends (a WARREN_FENCED refusal), and
   * refuses later ones: for a run this worker gave up, whose buffered events must never land.
   */
  discard(reason: string): void;
}

export function parseEntries(raw: [string, string[]][] | null | undefined): StreamEntry[] {
  if (!raw) return [];
  return raw.map(([id, fields]) => {
    let event = 'message';
    let data = '{}';
    for (let i = 0; i + 1 < fields.length; i += 2) {
      if (fields[i] === 'event') event = fields[i + 1] as string;
      else if (fields[i] === 'data') data = fields[i + 1] as string;
    }
    return { id, event, data };
  });
}

/** True for a value usable as a resume cursor: a stream id, or `-1`/`0` for the start. */
export const isStreamCursor = (id: string): boolean => id === '-1' || /^\d{1,20}(-\d{1,20})?$/.test(id);

/** The ms part of a stream id is when the worker appended the entry. */
export const appendedAt = (id: string): number => Number(id.slice(0, id.indexOf('-')));

/** Compares stream ids (`ms-seq`) numerically. */
export function compareIds(a: string, b: string): number {
  if (a === b) return 0;
  // Called for every entry and every client of a run: no arrays.
  const ad = a.indexOf('-');
  const bd = b.indexOf('-');
  const am = Number(ad < 0 ? a : a.slice(0, ad));
  const bm = Number(bd < 0 ? b : b.slice(0, bd));
  if (am !== bm) return am - bm;
  return (ad < 0 ? 0 : Number(a.slice(ad + 1))) - (bd < 0 ? 0 : Number(b.slice(bd + 1)));
}

export interface RunStreams {
  /** A writer fenced by the run attempt that holds the run. */
  writer(fence: RunFence): RunStreamWriter;
  /** Entries strictly after `afterId` (`0` or `-1` for all), up to `count`. */
  readAfter(threadId: string, runId: string, afterId: string, count?: number): Promise<StreamEntry[]>;
  /** The stream's last entry, or null when the stream does not exist. */
  lastEntry(threadId: string, runId: string): Promise<StreamEntry | null>;
  /** The Redis key of a run's stream, as `readMany` names it. */
  key(threadId: string, runId: string): string;
  /**
   * Blocks on `connection` (a dedicated one) until any of the streams has entries after its
   * cursor (`stream key → id`), or `blockMs` passes. Returns `[key, entries]` for those that do.
   */
  readMany(connection: RedisClient, cursors: ReadonlyMap<string, string>, blockMs: number): Promise<[string, StreamEntry[]][]>;
  /**
   * True on a Redis Cluster: writers publish each entry's id on the run's sharded channel
   * (`channel`), and readers follow streams by subscribing to it rather than by XREAD (which
   * cannot span slots). False on one Redis, where nothing is published.
   */
  readonly notifies: boolean;
  /** The sharded channel a run's new entry ids are published on (when `notifies`). */
  channel(threadId: string, runId: string): string;
  /** The key of a hub's wake stream, for `readMany` and `ring`. */
  wakeStream(hubId: string): string;
  /** Adds an entry to a wake stream, ending a `readMany` that names it. */
  ring(wakeKey: string): Promise<void>;
  removeWakeStream(wakeKey: string): Promise<void>;
  remove(threadId: string, runId: string): Promise<void>;
}

/**
 * What a run's writing scripts publish new entry ids on: the run's sharded channel on a Redis
 * Cluster, nothing (`''`) on one Redis (see keys.runStreamChannel).
 */
export const appendedChannel = (redis: RedisClient, threadId: string, runId: string): string =>
  isCluster(redis) ? keys.runStreamChannel(threadId, runId) : '';

/** The most events, and about the most bytes of data, one append script writes: it holds Redis while it runs. */
const BATCH_EVENTS = 128;
const BATCH_BYTES = 256 * 1024;

interface PendingAppend {
  event: string;
  data: string;
  resolve(id: string): void;
  reject(err: unknown): void;
}

/**
 * The most bytes of event data one run's writer holds while its connection to Redis is down (an
 * outage): an append beyond it fails (WARREN_STREAM_BUFFER_FULL), and its run is given up. The
 * graph itself waits at its next checkpoint until its events are stored (stream-barrier.ts), so
 * what is held is about one step's output. While Redis answers, a backlog is only the graph
 * running ahead of the round trips, and drains.
 */
export const STREAM_BUFFER_BYTES = 8 * 1024 * 1024;

/**
 * A writer that sends a run's events in batches, one script call each: the events produced while
 * the previous batch was in flight go together in the next (one round trip and one fence check
 * for all of them), in order. When nothing is in flight, the next batch leaves once the current
 * turn of the event loop is done, so a token is never held behind another. While Redis is away
 * the batch in flight waits for it, and the events after it wait here, up to `bufferBytes`.
 * `sendQueued` sends the waiting events at once (a checkpoint is about to follow them).
 */
export function batchedWriter(send: (pairs: string[]) => Promise<string[]>, connected: () => boolean, bufferBytes = STREAM_BUFFER_BYTES): RunStreamWriter {
  let queue: PendingAppend[] = [];
  let queuedBytes = 0;
  let inFlight = 0;
  let scheduled = false;
  let discarded: Error | null = null;
  /** Sends the oldest waiting events, as many as one batch takes. */
  const sendBatch = (): void => {
    let count = 0;
    let bytes = 0;
    while (count < queue.length && count < BATCH_EVENTS && (count === 0 || bytes + (queue[count] as PendingAppend).data.length <= BATCH_BYTES)) {
      bytes += (queue[count] as PendingAppend).data.length;
      count += 1;
    }
    const batch = count === queue.length ? queue : queue.slice(0, count);
    queue = count === queue.length ? [] : queue.slice(count);
    queuedBytes -= bytes;
    const pairs: string[] = [];
    for (const pending of batch) pairs.push(pending.event, pending.data);
    inFlight += 1;
    send(pairs).then(
      (ids) => {
        inFlight -= 1;
        batch.forEach((pending, i) => pending.resolve(ids[i] as string));
        flush();
      },
      (err: unknown) => {
        inFlight -= 1;
        // Every event of a refused batch fails with it (a fenced writer's later batches are refused too).
        for (const pending of batch) pending.reject(err);
        flush();
      },
    );
  };
  const flush = (): void => {
    scheduled = false;
    if (queue.length > 0 && inFlight === 0) sendBatch();
  };
  return {
    append: (event, data) =>
      new Promise<string>((resolve, reject) => {
        if (discarded) return reject(discarded);
        if (queuedBytes + data.length > bufferBytes && queue.length > 0 && !connected()) {
          return reject(new StreamBufferFullError(`More than ${bufferBytes} bytes of the run's events are waiting for Redis; the run is given up.`));
        }
        queue.push({ event, data, resolve, reject });
        queuedBytes += data.length;
        if (inFlight > 0 || scheduled) return;
        scheduled = true;
        setImmediate(flush);
      }),
    sendQueued() {
      if (queue.length === 0) return true;
      if (!connected()) return false;
      while (queue.length > 0) sendBatch();
      return true;
    },
    discard(reason) {
      discarded = new FencedError(reason);
      const dropped = queue;
      queue = [];
      queuedBytes = 0;
      for (const pending of dropped) pending.reject(discarded);
    },
  };
}

const normaliseCursor = (id: string) => (id === '-1' || id === '' ? '0' : id);

export function createRunStreams(redis: RedisClient, scripts: Record<string, ScriptCaller> = loadScripts(redis)): RunStreams {
  const appendScript = requireScript(scripts, 'appendRunEvents');
  return {
    writer({ threadId, runId, attempt }) {
      const fenceKeys = [keys.run(threadId, runId), keys.runStream(threadId, runId)];
      const head = [String(attempt), appendedChannel(redis, threadId, runId)];
      return batchedWriter(async (pairs) => (await appendScript(fenceKeys, [...head, ...pairs])) as string[], () => redis.status === 'ready');
    },

    async readAfter(threadId, runId, afterId, count = 10_000) {
      const key = keys.runStream(threadId, runId);
      const start = normaliseCursor(afterId);
      // `(id` makes the range exclusive; `0` means from the very start.
      const raw = await redis.xrange(key, start === '0' ? '-' : `(${start}`, '+', 'COUNT', count);
      return parseEntries(raw);
    },

    async lastEntry(threadId, runId) {
      const [last] = parseEntries(await redis.xrevrange(keys.runStream(threadId, runId), '+', '-', 'COUNT', 1));
      return last ?? null;
    },

    key: (threadId, runId) => keys.runStream(threadId, runId),

    async readMany(connection, cursors, blockMs) {
      const names = [...cursors.keys()];
      const ids = names.map((name) => normaliseCursor(cursors.get(name) as string));
      const reply = (await connection.xread('COUNT', 1000, 'BLOCK', blockMs, 'STREAMS', ...names, ...ids)) as
        | [string, [string, string[]][]][]
        | null;
      return (reply ?? []).map(([name, raw]) => [name, parseEntries(raw)]);
    },

    notifies: isCluster(redis),

    channel: (threadId, runId) => keys.runStreamChannel(threadId, runId),

    wakeStream: (hubId) => keys.streamHubWake(hubId),

    async ring(wakeKey) {
      // One entry is enough to end the XREAD; the key outlives a crashed API by a day at most.
      await redis.multi().xadd(wakeKey, 'MAXLEN', '1', '*', 'wake', '1').expire(wakeKey, 86_400).exec();
    },

    async removeWakeStream(wakeKey) {
      await redis.del(wakeKey);
    },

    async remove(threadId, runId) {
      await redis.del(keys.runStream(threadId, runId));
    },
  };
}
