// Child-process entry of the relayed floor's HTTP process (its "API"): the bare node:http server
// of the served floor, but a run goes on a Redis list for the graph process
// (relayed-graph-entry.ts) and its events come back from the run's Redis stream, read by one
// blocking XREAD for every stream this process relays, each reply framed once per stream and
// written to each of its readers at once. The least Warren's design does between a client and
// a worker, with no auth, no validation and no run records.
import type { ServerResponse } from 'node:http';
import { Redis } from 'ioredis';
import { RELAYED_END_EVENT, RELAYED_RUNS_KEY, RELAYED_WAKE_KEY, relayedStreamKey, type RelayedJob } from './relayed-keys.ts';
import { serveBenchCalls, sseEvent, type RunBody } from './served-http.ts';

const { port, redisUrl } = JSON.parse(process.argv.at(-1) ?? '{}') as { port: number; redisUrl: string };
const redis = new Redis(redisUrl, { enableAutoPipelining: true });
const reader = new Redis(redisUrl);

type Entry = [id: string, fields: string[]];

interface Reader {
  res: ServerResponse;
  done: () => void;
  /** A reader joining a stream already relayed: live entries wait here while its past is read. */
  catchingUp: Entry[] | null;
}

interface Relayed {
  lastId: string;
  readers: Set<Reader>;
}

const relayed = new Map<string, Relayed>();
let wakeId = '$';
let reading: Set<string> | null = null;

/** Writes entries to a reader; true once the run's end is among them. */
function deliver(r: Reader, entries: readonly Entry[], text: string): boolean {
  if (text) r.res.write(text);
  const ended = entries.at(-1)?.[1][1] === RELAYED_END_EVENT;
  if (ended) {
    r.res.end();
    r.done();
  }
  return ended;
}

const frame = (entries: readonly Entry[]): string => {
  let text = '';
  for (const [id, fields] of entries) if (fields[1] !== RELAYED_END_EVENT) text += sseEvent(fields[1] as string, fields[3] as string, id);
  return text;
};

async function relay(): Promise<void> {
  for (;;) {
    const keys = [...relayed.keys()];
    reading = new Set(keys);
    const ids = keys.map((key) => (relayed.get(key) as Relayed).lastId);
    const reply = (await reader.xread('COUNT', 1000, 'BLOCK', 0, 'STREAMS', RELAYED_WAKE_KEY, ...keys, wakeId, ...ids)) as [string, Entry[]][] | null;
    reading = null;
    for (const [key, entries] of reply ?? []) {
      const last = entries.at(-1);
      if (!last) continue;
      if (key === RELAYED_WAKE_KEY) {
        wakeId = last[0];
        continue;
      }
      const stream = relayed.get(key);
      if (!stream) continue;
      stream.lastId = last[0];
      const text = frame(entries);
      for (const r of stream.readers) {
        if (r.catchingUp) r.catchingUp.push(...entries);
        else if (deliver(r, entries, text)) stream.readers.delete(r);
      }
      if (last[1][1] === RELAYED_END_EVENT) relayed.delete(key);
    }
  }
}

/** Relays `key` to `res` from its first entry; resolves once the run's end was written. */
async function follow(key: string, res: ServerResponse): Promise<void> {
  let r!: Reader;
  const ended = new Promise<void>((done) => (r = { res, done, catchingUp: null }));
  const stream = relayed.get(key);
  if (!stream) {
    relayed.set(key, { lastId: '0', readers: new Set([r]) });
    // The blocking read in flight does not name this stream: end it so the next one does.
    if (reading && !reading.has(key)) await redis.xadd(RELAYED_WAKE_KEY, 'MAXLEN', '1', '*', 'w', '1');
    return ended;
  }
  // Already relayed from further on: read its past, then what came live meanwhile, past the past.
  r.catchingUp = [];
  stream.readers.add(r);
  const past = (await redis.xrange(key, '-', '+')) as Entry[];
  const through = past.at(-1)?.[0] ?? '0';
  const newer = r.catchingUp.filter(([id]) => compareIds(id, through) > 0);
  r.catchingUp = null;
  const all = [...past, ...newer];
  if (deliver(r, all, frame(all))) stream.readers.delete(r);
  return ended;
}

function compareIds(a: string, b: string): number {
  const [ams, aseq] = a.split('-').map(Number) as [number, number];
  const [bms, bseq] = b.split('-').map(Number) as [number, number];
  return ams - bms || aseq - bseq;
}

const enqueue = (job: RelayedJob) => redis.lpush(RELAYED_RUNS_KEY, JSON.stringify(job));
const job = (threadId: string, runId: string, body: RunBody): RelayedJob => ({ threadId, runId, input: body.input ?? null, configurable: body.config?.configurable ?? {} });

serveBenchCalls(
  port,
  async (threadId, runId, body, res) => {
    const ended = follow(relayedStreamKey(runId), res);
    await enqueue(job(threadId, runId, body));
    await ended;
  },
  {
    start: async (threadId, runId, body) => void (await enqueue(job(threadId, runId, body))),
    join: (runId, res) => follow(relayedStreamKey(runId), res),
  },
  async () => {
    reader.disconnect();
    redis.disconnect();
  },
);
void relay();
