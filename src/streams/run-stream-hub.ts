// Follows the streams of every run that has clients on this process and fans their entries
// out in memory: one reader for all runs, not one per client or per run.
//
// Measured: 1,000 clients each blocking on Redis for the same run waited 120 ms at the median;
// one reader per run broadcasting, 8–10 ms. A reader per run still cost a connection set-up per
// run and an XREAD reply per entry per run; one reader for all runs gets whatever entries
// arrived across them at once, and clients get them as one batch (one socket write).
//
// How the reader hears of new entries is its feed (run-stream-feeds.ts): on one Redis one
// XREAD BLOCK over every followed stream, on one connection; on a Redis Cluster, where an XREAD
// cannot span slots, a hint on each run's sharded channel (one subscriber connection per node)
// and a read from the stream's cursor.
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
import type { RedisClient, RedisConnections } from '../store/redis.js';
import { compareIds, type RunStreams, type StreamEntry } from '../store/run-stream.js';
import { blockingFeed, notifiedFeed, type FollowedStream, type LiveFeed } from './run-stream-feeds.js';
import { createPageCache, type PageCache } from './run-stream-pages.js';

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
  /**
   * Makes the one connection the hub listens on, when it is first needed; the hub disconnects
   * it on close. One Redis: a blocking connection (its XREAD); a Redis Cluster
   * (`streams.notifies`): a subscriber of sharded channels. `hubListener` picks.
   */
  listener: (name: string) => RedisClient;
  /**
   * Asked when a stream has had no new entry for a while, or a client resumes at its tail:
   * settled runs without `end` are closed.
   */
  isSettled: (threadId: string, runId: string) => Promise<boolean>;
  /** The longest a blocking read waits, and how long a stream may be quiet before it is checked. */
  blockMs?: number;
  onError?: (err: unknown) => void;
}

/** The connection a hub listens on, for `HubOptions.listener`. */
export function hubListener(redis: Pick<RedisConnections, 'cluster' | 'blocking' | 'shardedSubscriber'>): (name: string) => RedisClient {
  return (name) => (redis.cluster ? redis.shardedSubscriber(name) : redis.blocking(name));
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

interface Watch extends FollowedStream {
  /** The stream's `end` entry, once seen: nothing follows it, so the shared read leaves it out. */
  end: StreamEntry | null;
  /** Settles when the tail is known, or the watch has failed and its subscribers are finished. */
  ready: Promise<void>;
  subs: Set<Sub>;
  checkingSettled: boolean;
}

/** In the shared read: its tail is known, its `end` not seen. */
const isFollowed = (watch: Watch) => watch.cursor !== null && watch.end === null;

export function createRunStreamHub(options: HubOptions): RunStreamHub {
  return new StreamHub(options);
}

/** The hub: its watches (one per followed run), the shared page cache and the feed. */
class StreamHub implements RunStreamHub {
  private readonly streams: RunStreams;
  private readonly blockMs: number;
  private readonly watches = new Map<string, Watch>();
  private readonly pages: PageCache;
  private readonly feed: LiveFeed;
  private closed = false;
  private closing: Promise<void> | null = null;
  /** Reports an error to `options.onError`; passed on as it is, so an arrow. */
  private readonly onError = (err: unknown) => this.options.onError?.(err);

  constructor(private readonly options: HubOptions) {
    this.streams = options.streams;
    this.blockMs = options.blockMs ?? 5_000;
    this.pages = createPageCache(this.streams);
    this.feed = (this.streams.notifies ? notifiedFeed : blockingFeed)({
      streams: this.streams,
      connect: options.listener,
      blockMs: this.blockMs,
      onError: this.onError,
      target: {
        followed: () => [...this.watches.values()].filter(isFollowed),
        received: (stream, entries) => this.received(stream as Watch, entries),
        quiet: (now) => this.quiet(now),
      },
    });
  }

  subscribe(threadId: string, runId: string, afterId: string, subscriber: HubSubscriber): HubSubscription {
    if (this.closed) {
      // Shutting down: the client is told the stream ended (it can resume on another replica).
      queueMicrotask(() => this.safely(() => subscriber.onDone()));
      return { resume: () => {}, stop: () => {} };
    }
    const watch = this.watchOf(threadId, runId);
    const sub: Sub = { subscriber, cursor: afterId === '-1' || afterId === '' ? '0' : afterId, state: 'catching-up', watch };
    watch.subs.add(sub);
    this.startCatchUp(sub);
    return {
      resume: () => {
        if (sub.state !== 'paused') return;
        sub.state = 'catching-up';
        this.startCatchUp(sub);
      },
      stop: () => {
        if (sub.state === 'done') return;
        sub.state = 'done';
        this.detach(sub);
      },
    };
  }

  followed(): number {
    return [...this.watches.values()].filter(isFollowed).length;
  }

  stats(): HubStats {
    return {
      streams: this.watches.size,
      subscribers: [...this.watches.values()].reduce((sum, w) => sum + w.subs.size, 0),
      cachedPages: this.pages.stats().pages,
      cachedBytes: this.pages.stats().bytes,
    };
  }

  close(): Promise<void> {
    return (this.closing ??= this.shutDown());
  }

  private async shutDown(): Promise<void> {
    this.closed = true;
    await this.feed.close();
    for (const watch of [...this.watches.values()]) for (const sub of [...watch.subs]) this.finish(sub);
    this.watches.clear();
    this.pages.clear();
  }

  /** The run's watch, made on its first subscriber: the shared reader starts at the stream's current tail. */
  private watchOf(threadId: string, runId: string): Watch {
    const key = this.streams.key(threadId, runId);
    const existing = this.watches.get(key);
    if (existing) return existing;
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
    this.watches.set(key, created);
    // Subscribers catch up on their own, up to the tail.
    created.ready = this.streams.lastEntry(threadId, runId).then(
      (last) => {
        created.cursor = last?.id ?? '0';
        if (last?.event === 'end') created.end = last;
        created.lastEntryAt = Date.now();
        if (this.watches.get(key) === created && isFollowed(created)) this.feed.follow(created);
      },
      (err: unknown) => {
        this.onError(err);
        this.dropWatch(created);
        for (const s of [...created.subs]) this.finish(s);
      },
    );
    return created;
  }

  private dropWatch(watch: Watch): void {
    if (this.watches.get(watch.key) !== watch) return;
    this.watches.delete(watch.key);
    this.pages.drop(watch.key);
    this.feed.unfollow(watch);
  }

  private finish(sub: Sub): void {
    if (sub.state === 'done') return;
    sub.state = 'done';
    this.detach(sub);
    this.safely(() => sub.subscriber.onDone());
  }

  private detach(sub: Sub): void {
    const { watch } = sub;
    watch.subs.delete(sub);
    // A stream nobody follows is no longer read.
    if (watch.subs.size === 0) this.dropWatch(watch);
  }

  /** Calls into a subscriber; a throw is reported and ends that subscriber, never the reader. */
  private safely(call: () => void): boolean {
    try {
      call();
      return true;
    } catch (err) {
      this.onError(err);
      return false;
    }
  }

  private deliver(sub: Sub, entries: readonly StreamEntry[]): void {
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
    if (!this.safely(() => (taken = sub.subscriber.onEntries(batch)))) return this.finish(sub);
    const took = Math.min(taken ?? batch.length, batch.length);
    if (took > 0) sub.cursor = (batch[took - 1] as StreamEntry).id;
    if (took < batch.length) sub.state = 'paused';
    else if (endAt >= 0) this.finish(sub);
  }

  /** A live subscriber whose cursor is at or past the run's `end` (it resumed there) gets it again and is done. */
  private endIfPast(sub: Sub): void {
    const { end } = sub.watch;
    if (sub.state !== 'live' || end === null || compareIds(sub.cursor, end.id) < 0) return;
    this.safely(() => sub.subscriber.onEntries([end]));
    this.finish(sub);
  }

  private dispatch(watch: Watch, entries: readonly StreamEntry[]): void {
    const last = entries[entries.length - 1];
    if (watch.end === null && last?.event === 'end') {
      watch.end = last;
      this.feed.unfollow(watch);
    }
    // A subscriber still catching up reads these from Redis itself.
    for (const sub of [...watch.subs]) {
      if (sub.state !== 'live') continue;
      this.deliver(sub, entries);
      this.endIfPast(sub);
    }
  }

  /** The feed's entries for a followed stream. */
  private received(watch: Watch, entries: readonly StreamEntry[]): void {
    if (this.watches.get(watch.key) !== watch || !isFollowed(watch)) return;
    // A settled-run check may have read past some of these already.
    const cursor = watch.cursor as string;
    const fresh = compareIds((entries[0] as StreamEntry).id, cursor) > 0 ? entries : entries.filter((e) => compareIds(e.id, cursor) > 0);
    const last = fresh.at(-1);
    if (!last) return;
    watch.cursor = last.id;
    watch.lastEntryAt = Date.now();
    this.dispatch(watch, fresh);
  }

  /** The feed's quiet interval: streams without news for a while are checked for a settled run. */
  private quiet(now: number): void {
    for (const watch of this.watches.values()) {
      if (isFollowed(watch) && now - watch.lastEntryAt >= this.blockMs) this.startSettledCheck(watch);
    }
  }

  private startSettledCheck(watch: Watch): void {
    if (watch.checkingSettled) return;
    watch.checkingSettled = true;
    void this.checkSettled(watch).catch(this.onError);
  }

  private async checkSettled(watch: Watch): Promise<void> {
    try {
      if (!(await this.options.isSettled(watch.threadId, watch.runId))) return;
      const tail = await this.streams.readAfter(watch.threadId, watch.runId, watch.cursor ?? '0');
      if (tail.length > 0) {
        const last = (tail[tail.length - 1] as StreamEntry).id;
        // The shared read may have moved on meanwhile: never move its cursor back.
        if (watch.cursor === null || compareIds(last, watch.cursor) > 0) watch.cursor = last;
        this.dispatch(watch, tail);
        return;
      }
      // Settled, but the stream has no `end` (its worker died between the two writes, or the
      // stream expired): close every subscriber rather than leave it hanging, whatever cursor it
      // joined with. One still catching up asks again once it is live.
      const end: StreamEntry[] = [{ id: `${Date.now() + 1}-0`, event: 'end', data: '{}' }];
      for (const sub of [...watch.subs]) {
        if (sub.state !== 'live') continue;
        this.safely(() => sub.subscriber.onEntries(end));
        this.finish(sub);
      }
    } finally {
      watch.checkingSettled = false;
      watch.lastEntryAt = Date.now();
    }
  }

  private startCatchUp(sub: Sub): void {
    void this.catchUp(sub).catch((err: unknown) => {
      this.onError(err);
      this.finish(sub);
    });
  }

  private async catchUp(sub: Sub): Promise<void> {
    const { watch } = sub;
    await watch.ready;
    let delivered = false;
    let shared = true;
    // Checked and switched to live in one synchronous step: no shared batch can fall between.
    while (sub.state === 'catching-up' && watch.cursor !== null && compareIds(sub.cursor, watch.cursor) < 0) {
      const page = await this.pages.read(watch, sub.cursor, shared);
      if (page.length === 0) {
        // A shared read may have been issued before the entries the shared reader has since
        // seen: read once more on our own. Still nothing means they are gone (the stream expired).
        if (!shared) break;
        shared = false;
        continue;
      }
      shared = true;
      delivered = true;
      this.deliver(sub, page);
    }
    if (sub.state !== 'catching-up') return;
    sub.state = 'live';
    // Resumed at (or past) the end: the run has finished, and says so again now.
    this.endIfPast(sub);
    if (sub.state === 'live' && !delivered) {
      // Nothing to catch up on: a run that has settled without `end` is answered now rather
      // than after the shared read's next quiet block.
      this.startSettledCheck(watch);
    }
  }
}
