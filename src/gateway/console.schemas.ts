// DeerFlow's operations console: /api/console/stats, /runs and /usage (backend/app/gateway/
// routers/console.py at f1f4af99b), over the caller's threads and runs.
import { Type, type Static } from 'typebox';

const Count = Type.Integer({ minimum: 0 });
const Money = Type.Union([Type.Number(), Type.Null()]);
const Text = Type.Union([Type.String(), Type.Null()]);

export const ConsoleStatsSchema = Type.Object({
  total_runs: Count,
  active_runs: Count,
  failed_runs: Count,
  total_threads: Count,
  total_agents: Count,
  total_tokens: Count,
  total_cost: Money,
  currency: Text,
});
export type ConsoleStats = Static<typeof ConsoleStatsSchema>;

export const ConsoleRunsQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  offset: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 }),
  status: Type.Optional(Type.String({ maxLength: 32 })),
});
export type ConsoleRunsQuery = Static<typeof ConsoleRunsQuerySchema>;

export const ConsoleRunItemSchema = Type.Object({
  run_id: Type.String(),
  thread_id: Type.String(),
  thread_title: Text,
  assistant_id: Text,
  status: Type.String(),
  model_name: Text,
  created_at: Text,
  updated_at: Text,
  duration_seconds: Money,
  total_tokens: Count,
  message_count: Count,
  cost: Money,
  error: Text,
});
export type ConsoleRunItem = Static<typeof ConsoleRunItemSchema>;

export const ConsoleRunsSchema = Type.Object({ runs: Type.Array(ConsoleRunItemSchema), has_more: Type.Boolean() });
export type ConsoleRuns = Static<typeof ConsoleRunsSchema>;

export const ConsoleUsageQuerySchema = Type.Object({
  days: Type.Integer({ minimum: 1, maximum: 90, default: 14 }),
  tz_offset_minutes: Type.Integer({ minimum: -840, maximum: 840, default: 0 }),
});
export type ConsoleUsageQuery = Static<typeof ConsoleUsageQuerySchema>;

export const ConsoleUsageDaySchema = Type.Object({
  date: Type.String(),
  total_tokens: Count,
  input_tokens: Count,
  output_tokens: Count,
  runs: Count,
  cost: Type.Number(),
});
export type ConsoleUsageDay = Static<typeof ConsoleUsageDaySchema>;

export const ConsoleUsageModelSchema = Type.Object({
  tokens: Count,
  runs: Count,
  cost: Money,
  input_tokens: Count,
  cache_read_tokens: Count,
});
export type ConsoleUsageModel = Static<typeof ConsoleUsageModelSchema>;

export const ConsoleUsageSchema = Type.Object({
  days: Type.Array(ConsoleUsageDaySchema),
  by_model: Type.Record(Type.String(), ConsoleUsageModelSchema),
  total_tokens: Count,
  total_runs: Count,
  total_cost: Money,
  currency: Text,
});
export type ConsoleUsage = Static<typeof ConsoleUsageSchema>;
