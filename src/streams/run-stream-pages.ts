// A cache of catch-up pages (XRANGE reads of a run's stream) for the stream hub. Clients that
// replay a run from the same point, or that resume inside a page another client has read, get
// their entries from one read instead of each from its own, and the same array, which the relay
// frames once for all. Measured (bench workload stalled-fanout): 2,000 clients replaying half of
// a 1.7 MB run, each with its own reads and framing, took the API from 0.3 to 2.2–3.3 GB, all of
// it short-lived copies of the same entries; with shared pages and bounded queues, 0.33 GB.
//
// A page is the entries after an id, as Redis had them when it was read. Once the stream has
// grown, a cached page is shorter than a fresh read would be, never wrong: its entries are
// contiguous, and the reader reads on after its last one. Bounded in bytes and in pages, least
// recently used first; a run's pages go when the hub stops following it.
import { compareIds, type RunStreams, type StreamEntry } from '../store/run-stream.js';

/** Entries per XRANGE page. */
export const PAGE_ENTRIES = 1000;

export interface PageLimits {
  bytes: number;
  pages: number;
}

const DEFAULT_LIMITS: PageLimits = { bytes: 16 * 1024 * 1024, pages: 1024 };

export interface StreamRef {
  key: string;
  threadId: string;
  runId: string;
}

export interface PageCache {
  /**
   * Entries after `afterId`, at most a page. Shared (the default): from a cached page that holds
   * entries past `afterId`, or from the read of the same page already in flight; otherwise read
   * and kept. Not shared: a fresh read, kept nowhere.
   */
  read(stream: StreamRef, afterId: string, shared?: boolean): Promise<StreamEntry[]>;
  /** Forgets a stream's pages (the hub no longer follows it). */
  drop(streamKey: string): void;
  stats(): { pages: number; bytes: number };
  clear(): void;
}

interface Page {
  streamKey: string;
  /** The id the page was read after (`0`: the stream's start). */
  after: string;
  /** The read, while it is in flight. */
  pending: Promise<StreamEntry[]>;
  /** Its entries once read: never empty. */
  entries: StreamEntry[] | null;
  bytes: number;
  /**
   * Its tails handed out, by where they start: readers that resume at the same entry get the
   * same array, which the relay frames once for all of them.
   */
  tails: Map<number, StreamEntry[]>;
}

/** Tails kept per page: clients pause at the same few places (the relay's chunk boundaries). */
const TAILS_PER_PAGE = 32;

const sizeOf = (entries: readonly StreamEntry[]) => entries.reduce((sum, e) => sum + e.id.length + e.event.length + e.data.length, 0);

/** Index of the first entry with an id after `afterId`, or -1 when the page holds none. */
function firstAfter(page: Page, afterId: string): number {
  const entries = page.entries;
  if (!entries || compareIds(afterId, page.after) < 0) return -1;
  if (compareIds(afterId, (entries[entries.length - 1] as StreamEntry).id) >= 0) return -1;
  let lo = 0;
  let hi = entries.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareIds((entries[mid] as StreamEntry).id, afterId) > 0) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The page's entries from `at` on: readers that resume at the same entry get the same array. */
function tailOf(page: Page, entries: StreamEntry[], at: number): StreamEntry[] {
  let tail = page.tails.get(at);
  if (!tail) {
    tail = entries.slice(at);
    page.tails.set(at, tail);
    for (const oldest of page.tails.keys()) {
      if (page.tails.size <= TAILS_PER_PAGE) break;
      page.tails.delete(oldest);
    }
  }
  return tail;
}

export function createPageCache(streams: RunStreams, limits: PageLimits = DEFAULT_LIMITS): PageCache {
  return new SharedPages(streams, limits);
}

/** The pages read so far, by recency and by stream, within `limits`. */
class SharedPages implements PageCache {
  // Set order is recency: a hit moves its page to the end, eviction takes from the front.
  private readonly recent = new Set<Page>();
  private readonly byStream = new Map<string, Set<Page>>();
  private bytes = 0;

  constructor(
    private readonly streams: RunStreams,
    private readonly limits: PageLimits,
  ) {}

  read(stream: StreamRef, afterId: string, shared = true): Promise<StreamEntry[]> {
    const read = () => this.streams.readAfter(stream.threadId, stream.runId, afterId, PAGE_ENTRIES);
    if (!shared) return read();
    const found = this.find(stream, afterId);
    if (found) return found;
    const page: Page = { streamKey: stream.key, after: afterId, pending: read(), entries: null, bytes: 0, tails: new Map() };
    this.recent.add(page);
    let pages = this.byStream.get(stream.key);
    if (!pages) this.byStream.set(stream.key, (pages = new Set()));
    pages.add(page);
    page.pending.then(
      (entries) => this.keep(page, entries),
      () => this.remove(page),
    );
    return page.pending;
  }

  drop(streamKey: string): void {
    for (const page of [...(this.byStream.get(streamKey) ?? [])]) this.remove(page);
  }

  stats(): { pages: number; bytes: number } {
    return { pages: this.recent.size, bytes: this.bytes };
  }

  clear(): void {
    this.recent.clear();
    this.byStream.clear();
    this.bytes = 0;
  }

  /** A page's read is in: its entries are kept, and the least recently used pages go past the limits. */
  private keep(page: Page, entries: StreamEntry[]): void {
    if (!this.recent.has(page)) return;
    // An empty page says only that nothing had arrived yet: not worth keeping.
    if (entries.length === 0) return this.remove(page);
    page.entries = entries;
    page.bytes = sizeOf(entries);
    this.bytes += page.bytes;
    for (const oldest of this.recent) {
      if (this.bytes <= this.limits.bytes && this.recent.size <= this.limits.pages) break;
      this.remove(oldest);
    }
  }

  private remove(page: Page): void {
    if (!this.recent.delete(page)) return;
    this.bytes -= page.bytes;
    const pages = this.byStream.get(page.streamKey);
    pages?.delete(page);
    if (pages?.size === 0) this.byStream.delete(page.streamKey);
  }

  private touch(page: Page): void {
    this.recent.delete(page);
    this.recent.add(page);
  }

  private find(stream: StreamRef, afterId: string): Promise<StreamEntry[]> | null {
    for (const page of this.byStream.get(stream.key) ?? []) {
      if (page.entries === null) {
        if (page.after !== afterId) continue;
        this.touch(page);
        return page.pending;
      }
      const at = firstAfter(page, afterId);
      if (at < 0) continue;
      this.touch(page);
      return Promise.resolve(at === 0 ? page.entries : tailOf(page, page.entries, at));
    }
    return null;
  }
}
