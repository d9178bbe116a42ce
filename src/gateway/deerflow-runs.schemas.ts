// DeerFlow's gateway twins of the LangGraph run routes: /api/threads/{id}/runs…, /api/runs/…
// (backend/app/gateway/routers/thread_runs.py and runs.py at f1f4af99b). The run-create body is
// validated by Warren's schema (src/admission/run-create.schema.ts), then taken as DeerFlow's
// RunCreateRequest takes it (deerflow-run-profile.ts): the options it refuses are refused by name.
import { Type, type Static } from 'typebox';
import { JsonObjectSchema, MultitaskStrategySchema, RunStatusSchema } from '../store/records.js';
import { THREAD_ID_PATTERN } from '../workspace/thread-files.js';

const Count = Type.Integer({ minimum: 0 });

/** DeerFlow's RunResponse: the run record with its token tallies and message count. */
export const DfRunSchema = Type.Object({
  run_id: Type.String(),
  thread_id: Type.String(),
  assistant_id: Type.Union([Type.String(), Type.Null()]),
  status: RunStatusSchema,
  metadata: JsonObjectSchema,
  kwargs: JsonObjectSchema,
  multitask_strategy: MultitaskStrategySchema,
  created_at: Type.String(),
  updated_at: Type.String(),
  total_input_tokens: Count,
  total_output_tokens: Count,
  total_tokens: Count,
  llm_call_count: Count,
  lead_agent_tokens: Count,
  subagent_tokens: Count,
  middleware_tokens: Count,
  message_count: Count,
  stop_reason: Type.Union([Type.String(), Type.Null()]),
});
export type DfRun = Static<typeof DfRunSchema>;
export const DfRunListSchema = Type.Array(DfRunSchema);

export const RunIdParamsSchema = Type.Object({ run_id: Type.String({ pattern: THREAD_ID_PATTERN }) });

const CancelAction = Type.Union([Type.Literal('interrupt'), Type.Literal('rollback')]);
/** A query flag as FastAPI reads a `bool` (true/false, 1/0, yes/no, on/off). */
const Flag = Type.Union([
  Type.Boolean(),
  Type.Literal('1'),
  Type.Literal('0'),
  Type.Literal('true'),
  Type.Literal('false'),
  Type.Literal('yes'),
  Type.Literal('no'),
  Type.Literal('on'),
  Type.Literal('off'),
]);
export type DfFlag = Static<typeof Flag>;
export const isOn = (flag: DfFlag | undefined): boolean => flag === true || flag === '1' || flag === 'true' || flag === 'yes' || flag === 'on';

/** POST …/runs/{run_id}/cancel: `wait` blocks until the run settled (204), else 202. */
export const DfCancelQuerySchema = Type.Object({
  wait: Type.Optional(Flag),
  action: Type.Union([CancelAction], { default: 'interrupt' }),
});

/** GET|POST …/runs/{run_id}/stream: with `action`, cancel first; `wait=1` answers 204 once settled instead of streaming. */
export const DfStreamQuerySchema = Type.Object({
  action: Type.Optional(CancelAction),
  wait: Type.Integer({ minimum: 0, default: 0 }),
});
