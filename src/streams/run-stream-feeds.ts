// How the stream hub (run-stream-hub.ts) hears of new entries in the streams it follows. Two
// feeds, one per kind of Redis, behind one narrow interface:
//
// - One Redis: `blockingFeed`, one blocking connection and one XREAD over every followed stream
//   (and the hub's wake stream, which ends the XREAD early when a stream joins). Whatever arrived
//   across all runs comes back in one reply.
// - A Redis Cluster: an XREAD must stay on one slot, even on one node, so it cannot follow many
//   threads. `notifiedFeed` subscribes to each followed run's sharded channel (SSUBSCRIBE: one
//   subscriber connection per node, however many runs), on which the run's writing scripts
//   publish each new entry's id, and reads the stream from its cursor when told. The message is
//   only a hint: entries always come from the stream, from the cursor, so a hint lost while a
//   node's connection was down costs a delay (the next hint, or the quiet-interval read), never
//   an entry. Hints for a stream that arrive while its read is in flight make one more read.
//   After a node's connection was lost, ioredis does not always subscribe again (seen after a
//   whole cluster restart under load), so the feed makes a new subscriber client once the old
//   one is ready again, subscribes afresh and reads every followed stream.
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../store/redis.js';
import { compareIds, type RunStreams, type StreamEntry } from '../store/run-stream.js';
import { PAGE_ENTRIES } from './run-stream-pages.js';

/** A stream the hub follows: its tail is known (`cursor`), its `end` not seen yet. */
export interface FollowedStream {
  readonly key: string;
  readonly threadId: string;
  readonly runId: string;
  /** The last id the hub has read of it. */
  cursor: string | null;
  /** When it last had a new entry (or was last checked), ms since the epoch. */
  lastEntryAt: number;
}

/** What a feed sees of the hub. */
export interface FeedTarget {
  /** The streams to follow now. */
  followed(): Iterable<FollowedStream>;
  /** Entries of a followed stream, in order (the hub keeps those after its cursor). */
  received(stream: FollowedStream, entries: readonly StreamEntry[]): void;
  /** Called at least once a quiet interval: the hub checks streams without news for a settled run. */
  quiet(now: number): void;
}

export interface LiveFeed {
  /** A stream's tail is known: follow it from its cursor. */
  follow(stream: FollowedStream): void;
  /** Nobody follows the stream any more, or its `end` was seen. */
  unfollow(stream: FollowedStream): void;
  close(): Promise<void>;
}

export interface FeedOptions {
  streams: RunStreams;
  /** Makes the feed's one connection, on first use; the feed disconnects it on close. */
  connect: (name: string) => RedisClient;
  target: FeedTarget;
  /** The longest a blocking read waits, and the quiet interval. */
  blockMs: number;
  onError: (err: unknown) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One Redis: one XREAD BLOCK over every followed stream. */
export function blockingFeed({ streams, connect, target, blockMs, onError }: FeedOptions): LiveFeed {
  // Adding a stream while the reader is blocked: an entry on this feed's own wake stream ends
  // the XREAD at once, even when it was sent before the XREAD reached Redis.
  const wake = streams.wakeStream(randomUUID());
  let wakeCursor = '0';
  let connection: RedisClient | null = null;
  let looping = false;
  let loopDone: Promise<void> = Promise.resolve();
  let blocked = false;
  let blockGeneration = 0;
  let rungGeneration = -1;
  let closed = false;

  const ring = () => {
    if (closed || !looping || !blocked || rungGeneration === blockGeneration) return;
    rungGeneration = blockGeneration;
    void streams.ring(wake).catch(onError);
  };

  async function loop() {
    looping = true;
    try {
      while (!closed) {
        const byKey = new Map<string, FollowedStream>();
        for (const stream of target.followed()) byKey.set(stream.key, stream);
        if (byKey.size === 0) break;
        const cursors = new Map<string, string>([[wake, wakeCursor]]);
        for (const [key, stream] of byKey) cursors.set(key, stream.cursor as string);
        let batches: [string, StreamEntry[]][];
        blocked = true;
        blockGeneration += 1;
        try {
          batches = await streams.readMany((connection ??= connect('stream-hub')), cursors, blockMs);
        } catch (err) {
          if (closed) break;
          onError(err);
          await sleep(250);
          continue;
        } finally {
          blocked = false;
        }
        for (const [key, entries] of batches) {
          if (key === wake) {
            wakeCursor = entries.at(-1)?.id ?? wakeCursor;
            continue;
          }
          const stream = byKey.get(key);
          if (stream) target.received(stream, entries);
        }
        target.quiet(Date.now());
      }
    } finally {
      looping = false;
    }
  }

  return {
    follow() {
      if (closed) return;
      if (looping) ring();
      else loopDone = loop().catch(onError);
    },
    // The next XREAD leaves it out; the current one may still name it.
    unfollow() {},
    async close() {
      if (closed) return;
      closed = true;
      // A connection that is not up says Redis is away: no clean-up would reach it.
      const reachable = connection !== null && connection.status === 'ready';
      // Disconnecting aborts the pending XREAD BLOCK at once.
      connection?.disconnect();
      await loopDone;
      // The wake stream is one small key that expires by itself when it cannot be removed now.
      if (reachable) await streams.removeWakeStream(wake).catch(() => undefined);
    },
  };
}

/** A Redis Cluster: sharded-channel hints, then reads from the stream's cursor. */
export function notifiedFeed({ streams, connect, target, blockMs, onError }: FeedOptions): LiveFeed {
  /** Followed streams by their channel. */
  const byChannel = new Map<string, FollowedStream>();
  /** Channels Redis has us subscribed to, and those with a (un)subscribe in flight. */
  const subscribed = new Set<string>();
  const changing = new Set<string>();
  /** Streams with a read in flight: true when another hint came meanwhile (read again). */
  const reading = new Map<FollowedStream, { again: boolean }>();
  let subscriber: RedisClient | null = null;
  /** Counts subscriber clients: replies for an earlier one are ignored. */
  let generation = 0;
  /** The subscriber lost a node's connection: its subscriptions may be gone. */
  let suspect = false;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  const channelOf = (stream: FollowedStream) => streams.channel(stream.threadId, stream.runId);
  const isFollowed = (stream: FollowedStream) => byChannel.get(channelOf(stream)) === stream;

  const listener = (): RedisClient => {
    if (subscriber) return subscriber;
    const made = connect('stream-hub');
    const mine = generation;
    made.on('smessage', (channel: string, id: string) => {
      const stream = byChannel.get(channel);
      if (stream && stream.cursor !== null && compareIds(id, stream.cursor) > 0) read(stream);
    });
    const lost = () => {
      if (mine === generation) suspect = true;
    };
    for (const event of ['-node', 'error', 'node error']) made.on(event, lost);
    return (subscriber = made);
  };

  /** A new subscriber client, subscribed to every followed channel (each read once it is). */
  const renew = () => {
    generation += 1;
    suspect = false;
    subscriber?.disconnect();
    subscriber = null;
    subscribed.clear();
    changing.clear();
    for (const channel of byChannel.keys()) reconcile(channel);
  };

  /** Reads a stream on from its cursor, once more for every hint that came while reading. */
  const read = (stream: FollowedStream) => {
    const inFlight = reading.get(stream);
    if (inFlight) {
      inFlight.again = true;
      return;
    }
    const state = { again: true };
    reading.set(stream, state);
    void (async () => {
      try {
        while (state.again && !closed && isFollowed(stream) && stream.cursor !== null) {
          state.again = false;
          const entries = await streams.readAfter(stream.threadId, stream.runId, stream.cursor, PAGE_ENTRIES);
          if (entries.length > 0) target.received(stream, entries);
          // A full page: there may be more.
          if (entries.length === PAGE_ENTRIES) state.again = true;
        }
      } catch (err) {
        onError(err);
      } finally {
        reading.delete(stream);
      }
    })();
  };

  /**
   * Brings a channel's subscription in line with whether a stream is followed on it: one
   * (un)subscribe at a time per channel, checked again when it completes. A subscription that
   * failed (a node away) is tried again at the next tick (at least once a second).
   */
  const reconcile = (channel: string) => {
    if (closed || changing.has(channel)) return;
    const wanted = byChannel.has(channel);
    if (wanted === subscribed.has(channel)) return;
    changing.add(channel);
    const connection = listener();
    const mine = generation;
    const change = wanted ? connection.ssubscribe(channel) : connection.sunsubscribe(channel);
    void change.then(
      () => {
        if (mine !== generation) return;
        if (wanted) subscribed.add(channel);
        else subscribed.delete(channel);
        changing.delete(channel);
        const stream = byChannel.get(channel);
        // Entries written before the subscription took are read now; later ones are hinted.
        if (wanted && stream) read(stream);
        reconcile(channel);
      },
      (err: unknown) => {
        if (mine !== generation) return;
        changing.delete(channel);
        if (!closed) onError(err);
      },
    );
  };

  const tick = () => {
    const now = Date.now();
    if (suspect && subscriber?.status === 'ready') renew();
    for (const [channel, stream] of byChannel) {
      reconcile(channel);
      // No news for a while: read anyway, in case a hint was lost with a node's connection.
      if (now - stream.lastEntryAt >= blockMs) read(stream);
    }
    target.quiet(now);
  };

  return {
    follow(stream) {
      if (closed) return;
      const channel = channelOf(stream);
      byChannel.set(channel, stream);
      reconcile(channel);
      if (!timer) {
        // At least every second: a lost subscription is renewed soon after the cluster is back.
        timer = setInterval(tick, Math.min(blockMs, 1_000));
        timer.unref();
      }
    },
    unfollow(stream) {
      const channel = channelOf(stream);
      if (byChannel.get(channel) !== stream) return;
      byChannel.delete(channel);
      reconcile(channel);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      subscriber?.disconnect();
      byChannel.clear();
    },
  };
}
