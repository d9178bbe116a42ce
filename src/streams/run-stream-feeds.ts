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
export function blockingFeed(options: FeedOptions): LiveFeed {
  return new BlockingFeed(options);
}

/** A Redis Cluster: sharded-channel hints, then reads from the stream's cursor. */
export function notifiedFeed(options: FeedOptions): LiveFeed {
  return new NotifiedFeed(options);
}

class BlockingFeed implements LiveFeed {
  private readonly streams: RunStreams;
  private readonly target: FeedTarget;
  /**
   * Adding a stream while the reader is blocked: an entry on this feed's own wake stream ends
   * the XREAD at once, even when it was sent before the XREAD reached Redis.
   */
  private readonly wake: string;
  private wakeCursor = '0';
  private connection: RedisClient | null = null;
  private looping = false;
  private loopDone: Promise<void> = Promise.resolve();
  private blocked = false;
  private blockGeneration = 0;
  private rungGeneration = -1;
  private closed = false;
  private closing: Promise<void> | null = null;

  constructor(private readonly options: FeedOptions) {
    this.streams = options.streams;
    this.target = options.target;
    this.wake = this.streams.wakeStream(randomUUID());
  }

  follow(): void {
    if (this.closed) return;
    if (this.looping) this.ring();
    else this.loopDone = this.loop().catch(this.options.onError);
  }

  // The next XREAD leaves it out; the current one may still name it.
  unfollow(): void {}

  close(): Promise<void> {
    return (this.closing ??= this.shutDown());
  }

  private async shutDown(): Promise<void> {
    this.closed = true;
    const { connection } = this;
    // A connection that is not up says Redis is away: no clean-up would reach it.
    const reachable = connection !== null && connection.status === 'ready';
    // Disconnecting aborts the pending XREAD BLOCK at once.
    connection?.disconnect();
    await this.loopDone;
    if (reachable) await this.streams.removeWakeStream(this.wake).catch(() => undefined); // one small key that expires by itself
  }

  private ring(): void {
    if (this.closed || !this.looping || !this.blocked || this.rungGeneration === this.blockGeneration) return;
    this.rungGeneration = this.blockGeneration;
    void this.streams.ring(this.wake).catch(this.options.onError);
  }

  private async loop(): Promise<void> {
    this.looping = true;
    try {
      while (!this.closed) {
        const byKey = new Map<string, FollowedStream>();
        for (const stream of this.target.followed()) byKey.set(stream.key, stream);
        if (byKey.size === 0) break;
        const cursors = new Map<string, string>([[this.wake, this.wakeCursor]]);
        for (const [key, stream] of byKey) cursors.set(key, stream.cursor as string);
        let batches: [string, StreamEntry[]][];
        this.blocked = true;
        this.blockGeneration += 1;
        try {
          batches = await this.streams.readMany((this.connection ??= this.options.connect('stream-hub')), cursors, this.options.blockMs);
        } catch (err) {
          if (this.closed) break;
          this.options.onError(err);
          await sleep(250);
          continue;
        } finally {
          this.blocked = false;
        }
        this.hand(byKey, batches);
        this.target.quiet(Date.now());
      }
    } finally {
      this.looping = false;
    }
  }

  /** Hands each stream's entries to the hub; the wake stream's only move its cursor. */
  private hand(byKey: Map<string, FollowedStream>, batches: [string, StreamEntry[]][]): void {
    for (const [key, entries] of batches) {
      if (key === this.wake) {
        this.wakeCursor = entries.at(-1)?.id ?? this.wakeCursor;
        continue;
      }
      const stream = byKey.get(key);
      if (stream) this.target.received(stream, entries);
    }
  }
}

class NotifiedFeed implements LiveFeed {
  private readonly streams: RunStreams;
  private readonly target: FeedTarget;
  /** Followed streams by their channel. */
  private readonly byChannel = new Map<string, FollowedStream>();
  /** Channels Redis has us subscribed to, and those with a (un)subscribe in flight. */
  private readonly subscribed = new Set<string>();
  private readonly changing = new Set<string>();
  /** Streams with a read in flight: true when another hint came meanwhile (read again). */
  private readonly reading = new Map<FollowedStream, { again: boolean }>();
  private subscriber: RedisClient | null = null;
  /** Counts subscriber clients: replies for an earlier one are ignored. */
  private generation = 0;
  /** The subscriber lost a node's connection: its subscriptions may be gone. */
  private suspect = false;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private closing: Promise<void> | null = null;

  constructor(private readonly options: FeedOptions) {
    this.streams = options.streams;
    this.target = options.target;
  }

  follow(stream: FollowedStream): void {
    if (this.closed) return;
    const channel = this.channelOf(stream);
    this.byChannel.set(channel, stream);
    this.reconcile(channel);
    if (!this.timer) {
      // At least every second: a lost subscription is renewed soon after the cluster is back.
      this.timer = setInterval(() => this.tick(), Math.min(this.options.blockMs, 1_000));
      this.timer.unref();
    }
  }

  unfollow(stream: FollowedStream): void {
    const channel = this.channelOf(stream);
    if (this.byChannel.get(channel) !== stream) return;
    this.byChannel.delete(channel);
    this.reconcile(channel);
  }

  close(): Promise<void> {
    return (this.closing ??= this.shutDown());
  }

  private async shutDown(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.subscriber?.disconnect();
    this.byChannel.clear();
  }

  private channelOf(stream: FollowedStream): string {
    return this.streams.channel(stream.threadId, stream.runId);
  }

  private isFollowed(stream: FollowedStream): boolean {
    return this.byChannel.get(this.channelOf(stream)) === stream;
  }

  private listener(): RedisClient {
    if (this.subscriber) return this.subscriber;
    const made = this.options.connect('stream-hub');
    const mine = this.generation;
    made.on('smessage', (channel: string, id: string) => {
      const stream = this.byChannel.get(channel);
      if (stream && stream.cursor !== null && compareIds(id, stream.cursor) > 0) this.read(stream);
    });
    const lost = () => {
      if (mine === this.generation) this.suspect = true;
    };
    for (const event of ['-node', 'error', 'node error']) made.on(event, lost);
    return (this.subscriber = made);
  }

  /** A new subscriber client, subscribed to every followed channel (each read once it is). */
  private renew(): void {
    this.generation += 1;
    this.suspect = false;
    this.subscriber?.disconnect();
    this.subscriber = null;
    this.subscribed.clear();
    this.changing.clear();
    for (const channel of this.byChannel.keys()) this.reconcile(channel);
  }

  /** Reads a stream on from its cursor, once more for every hint that came while reading. */
  private read(stream: FollowedStream): void {
    const inFlight = this.reading.get(stream);
    if (inFlight) {
      inFlight.again = true;
      return;
    }
    const state = { again: true };
    this.reading.set(stream, state);
    void this.readOn(stream, state);
  }

  private async readOn(stream: FollowedStream, state: { again: boolean }): Promise<void> {
    try {
      while (state.again && !this.closed && this.isFollowed(stream) && stream.cursor !== null) {
        state.again = false;
        const entries = await this.streams.readAfter(stream.threadId, stream.runId, stream.cursor, PAGE_ENTRIES);
        if (entries.length > 0) this.target.received(stream, entries);
        // A full page: there may be more.
        if (entries.length === PAGE_ENTRIES) state.again = true;
      }
    } catch (err) {
      this.options.onError(err);
    } finally {
      this.reading.delete(stream);
    }
  }

  /**
   * Brings a channel's subscription in line with whether a stream is followed on it: one
   * (un)subscribe at a time per channel, checked again when it completes. A subscription that
   * failed (a node away) is tried again at the next tick (at least once a second).
   */
  private reconcile(channel: string): void {
    if (this.closed || this.changing.has(channel)) return;
    const wanted = this.byChannel.has(channel);
    if (wanted === this.subscribed.has(channel)) return;
    this.changing.add(channel);
    const connection = this.listener();
    const mine = this.generation;
    const change = wanted ? connection.ssubscribe(channel) : connection.sunsubscribe(channel);
    void change.then(
      () => {
        if (mine !== this.generation) return;
        if (wanted) this.subscribed.add(channel);
        else this.subscribed.delete(channel);
        this.changing.delete(channel);
        const stream = this.byChannel.get(channel);
        // Entries written before the subscription took are read now; later ones are hinted.
        if (wanted && stream) this.read(stream);
        this.reconcile(channel);
      },
      (err: unknown) => {
        if (mine !== this.generation) return;
        this.changing.delete(channel);
        if (!this.closed) this.options.onError(err);
      },
    );
  }

  private tick(): void {
    const now = Date.now();
    if (this.suspect && this.subscriber?.status === 'ready') this.renew();
    for (const [channel, stream] of this.byChannel) {
      this.reconcile(channel);
      // No news for a while: read anyway, in case a hint was lost with a node's connection.
      if (now - stream.lastEntryAt >= this.options.blockMs) this.read(stream);
    }
    this.target.quiet(now);
  }
}
