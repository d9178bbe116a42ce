// Follows the streams of every run that has clients on this API process with one blocking
// connection and one XREAD over all of them, fanning entries out in memory.
//
// Measured: 1,000 clients each blocking on Redis for the same run waited 120 ms at the median;
// one reader per run broadcasting, 8–10 ms. A reader per run still cost a connection set-up per
// run and an XREAD reply per entry per run; one XREAD for all runs returns whatever entries
// arrived across them in one reply, and clients get them as one batch (one socket write).
//
// A subscriber first catches up with XRANGE pages from its own cursor until it has reached the
// shared reader's cursor, then takes live entries from the shared reader. The switch is one
// synchronous step, so every entry arrives exactly once and in order, whatever the timing, and
// nothing is held for a subscriber while it catches up. A subscriber that takes only part of
// what it is offered (its client reads slowly) is paused holding nothing but its cursor, and
// catches up again when it resumes.
//
// Catch-up pages come from a shared cache (run-stream-pages.ts): clients that replay a run from
// the same point get the same page, read once and framed once.
//
// A stream whose `end` has been seen is not read again, and a subscriber that resumes at or
// after it is answered with it at once.
//
// The XREAD names every followed stream, so on a single Redis one reader (one connection, one
// XREAD) serves every run. On a Redis Cluster an XREAD must stay on one slot: the hub keeps one
// reader per read group (`RunStreams.readGroup`: there, a thread), each with its own blocking
// connection and its own wake stream in that thread's slot, made when the thread's first client
// comes and closed when its last one leaves. Cost on a Cluster: one blocking connection per
// thread that has clients on this process (not one per node: streams of different slots cannot
// share an XREAD, even on one node).
import { randomUUID } from 'node:crypto';
import type { RedisClient } from './redis.js';
import { compareIds, type RunStreams, type StreamEntry } from './run-stream.js';
import { createPageCache } from './run-stream-pages.js';

export interface HubSubscriber {
  /**
   * New entries, in stream order; each entry is delivered once. Returns how many it took (all
   * when it returns nothing): fewer pauses it until resume(), which goes on after the last taken.
   */
  onEntries(entries: readonly StreamEntry[]): number | void;
  /** The stream ended (an `end` entry was delivered) or the run was found settled without one. */
  onDone(): void;
}

/** What the hub holds right now (for tests and metrics): nothing once every client has gone. */
export interface HubStats {
  /** Runs with at least one subscriber. */
  streams: number;
  subscribers: number;
  cachedPages: number;
  cachedBytes: number;
}

export interface HubSubscription {
  /** Goes on after a pause, from the last entry taken. */
  resume(): void;
  stop(): void;
}

export interface RunStreamHub {
  /** Delivers entries after `afterId` (`-1`/`0`: all). */
  subscribe(threadId: string, runId: string, afterId: string, subscriber: HubSubscriber): HubSubscription;
  /** Streams in the shared read right now: followed, with their tail known and no `end` yet. */
  followed(): number;
  stats(): HubStats;
  close(): Promise<void>;
}

export interface HubOptions {
  streams: RunStreams;
  /** Makes the one connection the hub blocks on; called once, the hub disconnects it on close. */
  blockingConnection: (name: string) => RedisClient;
  /**
   * Asked when a stream has had no new entry for a while, or a client resumes at its tail:
   * settled runs without `end` are closed.
   */
  isSettled: (threadId: string, runId: string) => Promise<boolean>;
  blockMs?: number;
  onError?: (err: unknown) => void;
}

interface Sub {
  subscriber: HubSubscriber;
  cursor: string;
  /**
   * catching-up: reads pages after its cursor; live: takes the shared reader's entries; paused:
   * takes nothing until resume().
   */
  state: 'catching-up' | 'live' | 'paused' | 'done';
  watch: Watch;
}

interface Watch {
  key: string;
  threadId: string;
  runId: string;
  /** Last id the shared reader has seen; null until the stream's tail is known. */
  cursor: string | null;
  /** The stream's `end` entry, once seen: nothing follows it, so the shared read leaves it out. */
  end: StreamEntry | null;
  /** Settles when the tail is known, or the watch has failed and its subscribers are finished. */
  ready: Promise<void>;
  subs: Set<Sub>;
  lastEntryAt: number;
  checkingSettled: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Blocking connections kept for the next thread's reader on a Cluster, at most. */
const IDLE_READER_CONNECTIONS = 32;

export function createRunStreamHub(options: HubOptions): RunStreamHub {
  const readers = new Map<string, RunStreamHub>();
  let closed = false;
  // On a Cluster a reader per thread comes and goes with the thread's clients; its connection
  // (a Cluster client, which costs a slots lookup and a connection to set up) goes back to this
  // pool for the next one, whatever its thread: a Cluster client reaches every slot.
  const idle: RedisClient[] = [];
  const pooled = {
    take: (name: string) => idle.pop() ?? options.blockingConnection(name),
    giveBack(connection: RedisClient) {
      if (closed || idle.length >= IDLE_READER_CONNECTIONS) connection.disconnect();
      else idle.push(connection);
    },
  };
  const readerFor = (group: string): RunStreamHub => {
    let reader = readers.get(group);
    if (!reader) readers.set(group, (reader = createGroupReader(group === '' ? options : { ...options, blockingConnection: pooled.take }, group, group === '' ? undefined : pooled.giveBack)));
    return reader;
  };
  // A thread's reader goes when its last subscriber does (one Redis: the one reader stays).
  const release = (group: string, reader: RunStreamHub) => {
    if (group === '' || closed || readers.get(group) !== reader || reader.stats().subscribers > 0) return;
    readers.delete(group);
    void reader.close().catch((err: unknown) => options.onError?.(err));
  };
  const all = () => [...readers.values()];
  return {
    subscribe(threadId, runId, afterId, subscriber) {
      if (closed) {
        // Shutting down: the client is told the stream ended (it can resume on another replica).
        queueMicrotask(() => subscriber.onDone());
        return { resume: () => {}, stop: () => {} };
      }
      const group = options.streams.readGroup(threadId);
      const reader = readerFor(group);
      const subscription = reader.subscribe(threadId, runId, afterId, {
        onEntries: (entries) => subscriber.onEntries(entries),
        onDone() {
          try {
            subscriber.onDone();
          } finally {
            queueMicrotask(() => release(group, reader));
          }
        },
      });
      return {
        resume: () => subscription.resume(),
        stop() {
          subscription.stop();
          release(group, reader);
        },
      };
    },
    followed: () => all().reduce((sum, reader) => sum + reader.followed(), 0),
    stats: () =>
      all()
        .map((reader) => reader.stats())
        .reduce((sum, one) => ({
          streams: sum.streams + one.streams,
          subscribers: sum.subscribers + one.subscribers,
          cachedPages: sum.cachedPages + one.cachedPages,
          cachedBytes: sum.cachedBytes + one.cachedBytes,
        }), { streams: 0, subscribers: 0, cachedPages: 0, cachedBytes: 0 }),
    async close() {
      closed = true;
      const closing = all();
      readers.clear();
      await Promise.all(closing.map((reader) => reader.close()));
      for (const connection of idle.splice(0)) connection.disconnect();
    },
  };
}

/**
 * One reader: one blocking connection and one XREAD over the followed streams of one read group.
 * With `giveBack`, closing hands its connection back (once its XREAD has returned) instead of
 * dropping it.
 */
function createGroupReader(options: HubOptions, group: string, giveBack?: (connection: RedisClient) => void): RunStreamHub {
  const { streams } = options;
  const blockMs = options.blockMs ?? 5_000;
  const watches = new Map<string, Watch>();
  const pages = createPageCache(streams);
  // Adding a stream while the reader is blocked: an entry on this reader's own wake stream ends
  // the XREAD at once, even when it was sent before the XREAD reached Redis.
  const wake = streams.wakeStream(randomUUID(), group);
  let wakeCursor = '0';
  let connection: RedisClient | null = null;
  let looping = false;
  let loopDone: Promise<void> = Promise.resolve();
  let blocked = false;
  let blockGeneration = 0;
  let rungGeneration = -1;
  let closed = false;

  const isFollowed = (watch: Watch) => watch.cursor !== null && watch.end === null;

  const dropWatch = (watch: Watch) => {
    if (watches.get(watch.key) !== watch) return;
    watches.delete(watch.key);
    pages.drop(watch.key);
  };

  const finish = (sub: Sub) => {
    if (sub.state === 'done') return;
    sub.state = 'done';
    detach(sub);
    safely(() => sub.subscriber.onDone());
  };

  const detach = (sub: Sub) => {
    const { watch } = sub;
    watch.subs.delete(sub);
    // A stream nobody follows drops out of the next XREAD; the current one may still name it.
    if (watch.subs.size === 0) dropWatch(watch);
  };

  /** Calls into a subscriber; a throw is reported and ends that subscriber, never the reader. */
  const safely = (call: () => void): boolean => {
    try {
      call();
      return true;
    } catch (err) {
      options.onError?.(err);
      return false;
    }
  };

  const deliver = (sub: Sub, entries: readonly StreamEntry[]) => {
    if (sub.state === 'done' || sub.state === 'paused' || entries.length === 0) return;
    // Keep only ids past the subscriber's cursor, each once and in order: a settled-run check
    // and the shared read can overlap. The usual batch passes whole, so every client of a run
    // gets the same array (framed once for all).
    let kept: StreamEntry[] | null = null;
    let last = sub.cursor;
    entries.forEach((entry, i) => {
      if (compareIds(entry.id, last) > 0) {
        last = entry.id;
        kept?.push(entry);
      } else {
        kept ??= entries.slice(0, i);
      }
    });
    let fresh: readonly StreamEntry[] = kept ?? entries;
    if (fresh.length === 0) return;
    const endAt = fresh.findIndex((e) => e.event === 'end');
    if (endAt >= 0 && endAt < fresh.length - 1) fresh = fresh.slice(0, endAt + 1);
    const batch = fresh;
    let taken: number | void = batch.length;
    if (!safely(() => (taken = sub.subscriber.onEntries(batch)))) return finish(sub);
    const took = Math.min(taken ?? batch.length, batch.length);
    if (took > 0) sub.cursor = (batch[took - 1] as StreamEntry).id;
    if (took < batch.length) sub.state = 'paused';
    else if (endAt >= 0) finish(sub);
  };

  /** A live subscriber whose cursor is at or past the run's `end` (it resumed there) gets it again and is done. */
  const endIfPast = (sub: Sub) => {
    const { end } = sub.watch;
    if (sub.state !== 'live' || end === null || compareIds(sub.cursor, end.id) < 0) return;
    safely(() => sub.subscriber.onEntries([end]));
    finish(sub);
  };

  const dispatch = (watch: Watch, entries: readonly StreamEntry[]) => {
    const last = entries[entries.length - 1];
    if (watch.end === null && last?.event === 'end') watch.end = last;
    // A subscriber still catching up reads these from Redis itself.
    for (const sub of [...watch.subs]) {
      if (sub.state !== 'live') continue;
      deliver(sub, entries);
      endIfPast(sub);
    }
  };

  const connect = (): RedisClient => (connection ??= options.blockingConnection('stream-hub'));

  const ring = () => {
    if (closed || !looping || !blocked || rungGeneration === blockGeneration) return;
    rungGeneration = blockGeneration;
    void streams.ring(wake).catch((err: unknown) => options.onError?.(err));
  };

  const checkSettled = async (watch: Watch) => {
    try {
      if (!(await options.isSettled(watch.threadId, watch.runId))) return;
      const tail = await streams.readAfter(watch.threadId, watch.runId, watch.cursor ?? '0');
      if (tail.length > 0) {
        const last = (tail[tail.length - 1] as StreamEntry).id;
        // The shared read may have moved on meanwhile: never move its cursor back.
        if (watch.cursor === null || compareIds(last, watch.cursor) > 0) watch.cursor = last;
        dispatch(watch, tail);
        return;
      }
      // Settled, but the stream has no `end` (its worker died between the two writes, or the
      // stream expired): close every subscriber rather than leave it hanging, whatever cursor it
      // joined with. One still catching up asks again once it is live.
      const end: StreamEntry[] = [{ id: `${Date.now() + 1}-0`, event: 'end', data: '{}' }];
      for (const sub of [...watch.subs]) {
        if (sub.state !== 'live') continue;
        safely(() => sub.subscriber.onEntries(end));
        finish(sub);
      }
    } finally {
      watch.checkingSettled = false;
      watch.lastEntryAt = Date.now();
    }
  };

  const startSettledCheck = (watch: Watch) => {
    if (watch.checkingSettled) return;
    watch.checkingSettled = true;
    void checkSettled(watch).catch((err: unknown) => options.onError?.(err));
  };

  async function loop() {
    looping = true;
    try {
      while (!closed && [...watches.values()].some(isFollowed)) {
        const cursors = new Map<string, string>([[wake, wakeCursor]]);
        for (const watch of watches.values()) if (isFollowed(watch)) cursors.set(watch.key, watch.cursor as string);
        let batches: [string, StreamEntry[]][];
        blocked = true;
        blockGeneration += 1;
        try {
          batches = await streams.readMany(connect(), cursors, blockMs);
        } catch (err) {
          if (closed) break;
          options.onError?.(err);
          await sleep(250);
          continue;
        } finally {
          blocked = false;
        }
        const now = Date.now();
        for (const [key, entries] of batches) {
          const last = entries[entries.length - 1];
          if (!last) continue;
          if (key === wake) {
            wakeCursor = last.id;
            continue;
          }
          const watch = watches.get(key);
          if (!watch) continue;
          watch.cursor = last.id;
          watch.lastEntryAt = now;
          dispatch(watch, entries);
        }
        for (const watch of watches.values()) {
          if (isFollowed(watch) && now - watch.lastEntryAt >= blockMs) startSettledCheck(watch);
        }
      }
    } finally {
      looping = false;
    }
  }

  /** Brings a stream whose tail is now known into the shared XREAD. */
  const follow = () => {
    if (looping) ring();
    else void (loopDone = loop().catch((err: unknown) => options.onError?.(err)));
  };

  async function catchUp(sub: Sub) {
    const { watch } = sub;
    await watch.ready;
    let delivered = false;
    let shared = true;
    // Checked and switched to live in one synchronous step: no shared batch can fall between.
    while (sub.state === 'catching-up' && watch.cursor !== null && compareIds(sub.cursor, watch.cursor) < 0) {
      const page = await pages.read(watch, sub.cursor, shared);
      if (page.length === 0) {
        // A shared read may have been issued before the entries the shared reader has since
        // seen: read once more on our own. Still nothing means they are gone (the stream expired).
        if (!shared) break;
        shared = false;
        continue;
      }
      shared = true;
      delivered = true;
      deliver(sub, page);
    }
    if (sub.state !== 'catching-up') return;
    sub.state = 'live';
    // Resumed at (or past) the end: the run has finished, and says so again now.
    endIfPast(sub);
    if (sub.state === 'live' && !delivered) {
      // Nothing to catch up on: a run that has settled without `end` is answered now rather
      // than after the shared read's next quiet block.
      startSettledCheck(watch);
    }
  }

  return {
    subscribe(threadId, runId, afterId, subscriber) {
      if (closed) {
        // Shutting down: the client is told the stream ended (it can resume on another replica).
        queueMicrotask(() => safely(() => subscriber.onDone()));
        return { resume: () => {}, stop: () => {} };
      }
      const key = streams.key(threadId, runId);
      let watch = watches.get(key);
      if (!watch) {
        const created: Watch = {
          key,
          threadId,
          runId,
          cursor: null,
          end: null,
          ready: Promise.resolve(),
          subs: new Set(),
          lastEntryAt: Date.now(),
          checkingSettled: false,
        };
        watches.set(key, created);
        watch = created;
        // The shared reader starts at the stream's current tail; subscribers catch up on their own.
        created.ready = streams.lastEntry(threadId, runId).then(
          (last) => {
            created.cursor = last?.id ?? '0';
            if (last?.event === 'end') created.end = last;
            created.lastEntryAt = Date.now();
            if (watches.get(key) === created && isFollowed(created)) follow();
          },
          (err: unknown) => {
            options.onError?.(err);
            dropWatch(created);
            for (const s of [...created.subs]) finish(s);
          },
        );
      }
      const sub: Sub = { subscriber, cursor: afterId === '-1' || afterId === '' ? '0' : afterId, state: 'catching-up', watch };
      watch.subs.add(sub);
      const start = () =>
        void catchUp(sub).catch((err: unknown) => {
          options.onError?.(err);
          finish(sub);
        });
      start();
      return {
        resume() {
          if (sub.state !== 'paused') return;
          sub.state = 'catching-up';
          start();
        },
        stop() {
          if (sub.state === 'done') return;
          sub.state = 'done';
          detach(sub);
        },
      };
    },

    followed: () => [...watches.values()].filter(isFollowed).length,

    stats: () => ({
      streams: watches.size,
      subscribers: [...watches.values()].reduce((sum, w) => sum + w.subs.size, 0),
      cachedPages: pages.stats().pages,
      cachedBytes: pages.stats().bytes,
    }),

    async close() {
      if (closed) return;
      closed = true;
      // No reader ever ran: no wake stream was written. A reader that is not connected says
      // Redis is away, and no clean-up would reach it.
      const nothingToRemove = connection === null || connection.status !== 'ready';
      const idle = [...watches.values()].every((watch) => watch.subs.size === 0);
      if (giveBack && connection && !nothingToRemove && idle) {
        // Nobody left to serve: end the pending XREAD BLOCK through the wake stream, and hand the
        // connection on once it has returned.
        const kept = connection;
        if (looping) {
          await streams.ring(wake).catch(() => undefined);
          await loopDone;
        }
        giveBack(kept);
      } else {
        // Disconnecting aborts the pending XREAD BLOCK at once.
        connection?.disconnect();
      }
      for (const watch of [...watches.values()]) for (const sub of [...watch.subs]) finish(sub);
      watches.clear();
      pages.clear();
      // Closing with Redis away: the wake stream is one small key, left to its owner's next start.
      if (!nothingToRemove) await streams.removeWakeStream(wake).catch(() => undefined);
    },
  };
}
