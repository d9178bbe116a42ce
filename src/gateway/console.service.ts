// DeerFlow's operations console over Warren's records: the caller's threads (their own index, an
// admin's: all, as every list is scoped), each thread's runs and the token tallies their workers
// recorded. DeerFlow answers 503 without a SQL database; Warren's runs are always in Redis, so
// the console always answers. Spend is estimated from `models[*].pricing` in config.yaml as
// DeerFlow does; Warren's tallies have no prompt-cache split, so every input token is priced as
// a cache miss. A failed run's `error` is the message its record keeps since it settled.
//
// Cost: one thread search per 1,000 threads, then per thread one run list and one pipelined read
// of its runs' tallies; the runs page also reads the history of the threads on that page.
import type { Identity } from '../auth/identity.js';
import type { AppConfig, ModelConfig } from '../config/app-config.schemas.js';
import type { ThreadsService } from '../runtime/threads.service.js';
import { runErrorMessage, type StoredRun, type Thread } from '../store/records.js';
import type { RunUsage, RunUsageStore } from '../store/run-usage.js';
import type { RunStore } from '../store/runs.js';
import type { ConsoleRunItem, ConsoleRuns, ConsoleRunsQuery, ConsoleStats, ConsoleUsage, ConsoleUsageModel, ConsoleUsageQuery } from './console.schemas.js';
import { usageTotals } from './deerflow-runs.service.js';
import type { ThreadMessagesService } from './thread-messages.service.js';

export interface ConsoleDeps {
  threads: Pick<ThreadsService, 'search'>;
  runs: Pick<RunStore, 'list'>;
  usage: Pick<RunUsageStore, 'byRun'>;
  history: Pick<ThreadMessagesService, 'countsByRun'>;
  config: Pick<AppConfig, 'models'>;
  /** The caller's custom agents. */
  countAgents: (identity: Identity) => Promise<number>;
}

const ACTIVE = new Set(['pending', 'running']);
const FAILED = new Set(['error', 'timeout']);
const THREAD_BATCH = 1000;
const RUN_BATCH = 1000;
const DAY_MS = 86_400_000;

interface Price {
  input: number;
  output: number;
  currency: string;
}

interface OwnedRun {
  run: StoredRun;
  thread: Partial<Thread>;
  usage: RunUsage | undefined;
}

/** Prices by model name and provider model id (either case); none when currencies are mixed. */
function pricingOf(models: readonly ModelConfig[]): Map<string, Price> {
  const out = new Map<string, Price>();
  let currency: string | undefined;
  for (const model of models) {
    const p = model.pricing;
    if (!p || (p.input_per_million <= 0 && p.output_per_million <= 0)) continue;
    const cur = p.currency.trim().toUpperCase() || 'USD';
    if (currency !== undefined && cur !== currency) return new Map();
    currency = cur;
    const price = { input: p.input_per_million, output: p.output_per_million, currency: cur };
    for (const key of [model.name, model.model]) {
      if (!out.has(key)) out.set(key, price);
      if (!out.has(key.toLowerCase())) out.set(key.toLowerCase(), price);
    }
  }
  return out;
}

const priceOf = (pricing: Map<string, Price>, model: string) => pricing.get(model) ?? pricing.get(model.toLowerCase());
const costOf = (price: Price, input: number, output: number) => (input / 1e6) * price.input + (output / 1e6) * price.output;
const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

/** A run's spend, or null when none of its models is priced. */
function runCost(pricing: Map<string, Price>, usage: RunUsage | undefined): number | null {
  let cost = 0;
  let priced = false;
  for (const [model, m] of Object.entries(usage?.models ?? {})) {
    const price = priceOf(pricing, model);
    if (!price || (m.input_tokens === 0 && m.output_tokens === 0)) continue;
    cost += costOf(price, m.input_tokens, m.output_tokens);
    priced = true;
  }
  return priced ? cost : null;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The model the run asked for (context, then configurable), else the one its tally names first. */
function modelNameOf(run: StoredRun, usage: RunUsage | undefined): string | null {
  const context = isRecord(run.kwargs.context) ? run.kwargs.context : {};
  const config = isRecord(run.kwargs.config) && isRecord(run.kwargs.config.configurable) ? run.kwargs.config.configurable : {};
  const named = context.model_name ?? config.model_name;
  if (typeof named === 'string' && named !== '') return named;
  return Object.keys(usage?.models ?? {})[0] ?? null;
}

const titleOf = (thread: Partial<Thread>): string | null => {
  const title = isRecord(thread.values) ? thread.values.title : undefined;
  return typeof title === 'string' && title !== '' ? title : null;
};

/** `YYYY-MM-DD` of an instant, shifted by the caller's offset. */
const localDate = (ms: number, offsetMinutes: number) => new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 10);

export function createConsoleService(deps: ConsoleDeps) {
  const threadsOf = async (identity: Identity): Promise<Partial<Thread>[]> => {
    const out: Partial<Thread>[] = [];
    for (let offset = 0; ; offset += THREAD_BATCH) {
      const { threads } = await deps.threads.search({ limit: THREAD_BATCH, offset, sort_by: 'updated_at', sort_order: 'desc' }, identity);
      out.push(...threads);
      if (threads.length < THREAD_BATCH) return out;
    }
  };

  const runsOf = async (thread: Partial<Thread>): Promise<OwnedRun[]> => {
    const threadId = thread.thread_id as string;
    const runs: StoredRun[] = [];
    for (let offset = 0; ; offset += RUN_BATCH) {
      const batch = await deps.runs.list(threadId, { limit: RUN_BATCH, offset });
      runs.push(...batch);
      if (batch.length < RUN_BATCH) break;
    }
    const usage = runs.length > 0 ? await deps.usage.byRun(threadId) : new Map<string, RunUsage>();
    return runs.map((run) => ({ run, thread, usage: usage.get(run.run_id) }));
  };

  /** Every run on the caller's threads, newest first. */
  const allRuns = async (identity: Identity): Promise<{ threads: number; runs: OwnedRun[] }> => {
    const threads = await threadsOf(identity);
    const runs = (await Promise.all(threads.map(runsOf))).flat();
    runs.sort((a, b) => b.run.created_at.localeCompare(a.run.created_at) || b.run.run_id.localeCompare(a.run.run_id));
    return { threads: threads.length, runs };
  };

  const currencyOf = (pricing: Map<string, Price>) => pricing.values().next().value?.currency ?? null;

  return {
    async stats(identity: Identity): Promise<ConsoleStats> {
      const [{ threads, runs }, agents] = await Promise.all([allRuns(identity), deps.countAgents(identity)]);
      const pricing = pricingOf(deps.config.models);
      const costs = runs.map((r) => runCost(pricing, r.usage));
      return {
        total_runs: runs.length,
        active_runs: runs.filter((r) => ACTIVE.has(r.run.status)).length,
        failed_runs: runs.filter((r) => FAILED.has(r.run.status)).length,
        total_threads: threads,
        total_agents: agents,
        total_tokens: runs.reduce((sum, r) => sum + usageTotals(r.usage).total_tokens, 0),
        total_cost: pricing.size > 0 ? round6(costs.reduce<number>((sum, c) => sum + (c ?? 0), 0)) : null,
        currency: currencyOf(pricing),
      };
    },

    async runs(query: ConsoleRunsQuery, identity: Identity): Promise<ConsoleRuns> {
      const { runs } = await allRuns(identity);
      const matching = query.status ? runs.filter((r) => r.run.status === query.status) : runs;
      const page = matching.slice(query.offset, query.offset + query.limit);
      const threadIds = [...new Set(page.map((r) => r.run.thread_id))];
      const counts = new Map(await Promise.all(threadIds.map(async (id) => [id, await deps.history.countsByRun(id)] as const)));
      const pricing = pricingOf(deps.config.models);
      const now = Date.now();
      const items = page.map(({ run, thread, usage }): ConsoleRunItem => {
        const created = Date.parse(run.created_at);
        const end = ACTIVE.has(run.status) ? now : Date.parse(run.updated_at);
        const cost = runCost(pricing, usage);
        return {
          run_id: run.run_id,
          thread_id: run.thread_id,
          thread_title: titleOf(thread),
          assistant_id: run.assistant_id,
          status: run.status,
          model_name: modelNameOf(run, usage),
          created_at: run.created_at,
          updated_at: run.updated_at,
          duration_seconds: Math.max(0, (end - created) / 1000),
          total_tokens: usageTotals(usage).total_tokens,
          message_count: counts.get(run.thread_id)?.get(run.run_id) ?? 0,
          cost: cost === null ? null : round6(cost),
          error: run.error === undefined ? null : runErrorMessage(run.error),
        };
      });
      return { runs: items, has_more: matching.length > query.offset + query.limit };
    },

    async usage(query: ConsoleUsageQuery, identity: Identity): Promise<ConsoleUsage> {
      const offsetMs = query.tz_offset_minutes * 60_000;
      const today = localDate(Date.now(), query.tz_offset_minutes);
      const startLocalMs = Date.parse(`${today}T00:00:00Z`) - (query.days - 1) * DAY_MS;
      const days = new Map(
        Array.from({ length: query.days }, (_, i) => {
          const date = new Date(startLocalMs + i * DAY_MS).toISOString().slice(0, 10);
          return [date, { date, total_tokens: 0, input_tokens: 0, output_tokens: 0, runs: 0, cost: 0 }];
        }),
      );
      const pricing = pricingOf(deps.config.models);
      const byModel: Record<string, ConsoleUsageModel> = {};
      let totalTokens = 0;
      let totalRuns = 0;
      let totalCost = pricing.size > 0 ? 0 : null;
      for (const { run, usage } of (await allRuns(identity)).runs) {
        const created = Date.parse(run.created_at);
        if (created < startLocalMs - offsetMs) continue;
        const day = days.get(localDate(created, query.tz_offset_minutes));
        if (!day) continue;
        const totals = usageTotals(usage);
        day.total_tokens += totals.total_tokens;
        day.input_tokens += totals.total_input_tokens;
        day.output_tokens += totals.total_output_tokens;
        day.runs += 1;
        totalTokens += totals.total_tokens;
        totalRuns += 1;
        const cost = runCost(pricing, usage);
        if (cost !== null && totalCost !== null) {
          day.cost = round6(day.cost + cost);
          totalCost = round6(totalCost + cost);
        }
        for (const [model, m] of Object.entries(usage?.models ?? {})) {
          const entry = (byModel[model] ??= { tokens: 0, runs: 0, cost: null, input_tokens: 0, cache_read_tokens: 0 });
          entry.runs += 1;
          entry.tokens += m.input_tokens + m.output_tokens;
          entry.input_tokens += m.input_tokens;
          const price = priceOf(pricing, model);
          if (price) entry.cost = round6((entry.cost ?? 0) + costOf(price, m.input_tokens, m.output_tokens));
        }
      }
      return { days: [...days.values()], by_model: byModel, total_tokens: totalTokens, total_runs: totalRuns, total_cost: totalCost, currency: currencyOf(pricing) };
    },
  };
}

export type ConsoleService = ReturnType<typeof createConsoleService>;
