// Child-process entry of the floor workload: the bench graph run in-process, with no server, no
// HTTP, no queue and no Redis: what any server must at least spend per run. Each run streams
// `values` and `messages` (what `values` + `messages-tuple` asks of a server) with the
// checkpoints stored in memory before each next step, as both servers do, and every chunk is
// serialised to JSON as a server must. Prints one JSON line with the figures.
import { randomUUID } from 'node:crypto';
import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { chatGraph } from '../graph/chat-graph.ts';

interface FloorArgs {
  concurrency: number;
  runs: number;
  warmupRuns: number;
}

const args = JSON.parse(process.argv.at(-1) ?? '{}') as FloorArgs;
chatGraph.checkpointer = new MemorySaver();

async function oneRun(): Promise<number> {
  const config = { configurable: { thread_id: randomUUID() }, streamMode: ['values', 'messages'] as ('values' | 'messages')[], durability: 'sync' as const };
  let bytes = 0;
  for await (const chunk of await chatGraph.stream({ messages: [new HumanMessage('Tell me something.')] }, config)) {
    bytes += JSON.stringify(chunk).length;
  }
  return bytes;
}

// The monotonic clock V8 stamps profile samples with, so `--cpu-prof` can be cut to the level.
const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n);

async function level(concurrency: number, runs: number): Promise<{ wallS: number; cpuMs: number; done: number; windowUs: [number, number] }> {
  let started = 0;
  let done = 0;
  const cpu = process.cpuUsage();
  const startUs = monotonicMicros();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < runs) {
        started += 1;
        await oneRun();
        done += 1;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { wallS: (performance.now() - t0) / 1000, cpuMs: (used.user + used.system) / 1000, done, windowUs: [startUs, monotonicMicros()] };
}

await level(20, args.warmupRuns);
const measured = await level(args.concurrency, args.runs);
process.stdout.write(
  `${JSON.stringify({
    concurrency: args.concurrency,
    runs: measured.done,
    runs_per_s: Number((measured.done / measured.wallS).toFixed(2)),
    cpu_ms_per_run: Number((measured.cpuMs / measured.done).toFixed(2)),
    window_us: measured.windowUs,
  })}\n`,
);
