// On a shared machine, other people's test runs can take a core away mid-measurement. Before each
// measured step the bench samples what else is running and waits (bounded) for it to calm down;
// if it never does, the step runs anyway and the caller records a note.
import { foreignCpuMeter } from './processes.ts';
import { say } from './say.ts';
import { sleep } from './wait.ts';

export interface QuietOptions {
  /** Other programs' CPU, in % of one core, below which the machine counts as quiet. */
  thresholdPct: number;
  sampleMs: number;
  maxWaitMs: number;
}

export const DEFAULT_QUIET: QuietOptions = { thresholdPct: 25, sampleMs: 1500, maxWaitMs: 120_000 };

/** Resolves with null once quiet, or with the last foreign load seen when the wait ran out. */
export async function waitForQuiet(processes: Readonly<Record<string, number>>, options: QuietOptions): Promise<number | null> {
  const deadline = Date.now() + options.maxWaitMs;
  let announced = false;
  for (;;) {
    const meter = foreignCpuMeter(processes);
    await sleep(options.sampleMs);
    const foreign = meter();
    if (foreign < options.thresholdPct) return null;
    if (Date.now() > deadline) return foreign;
    if (!announced) say(`other programs use ${foreign}% of a core; waiting up to ${Math.round(options.maxWaitMs / 1000)} s for the machine to calm down`);
    announced = true;
  }
}
