// A run-create body, as the LangGraph API spells it: what HTTP clients send and what a cron
// stores to start its runs with. Every field of LangGraph's run-create body is declared; the few
// Warren does not do are refused by name (run-checks.ts), and an unknown key is a 422 too.
import { Type, type Static } from 'typebox';
import {
  AfterSecondsSchema,
  CheckpointRefSchema,
  CommandSchema,
  NodeListSchema,
  OnCompletionSchema,
  OnDisconnectSchema,
  RunConfigSchema,
  RunInputSchema,
  StreamModeSchema,
  WebhookSchema,
} from '../queue/run-kwargs.js';
import { JsonObjectSchema, MultitaskStrategySchema } from '../store/records.js';

export const RunCreateSchema = Type.Object(
  {
    assistant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    input: Type.Optional(RunInputSchema),
    command: Type.Optional(Type.Union([CommandSchema, Type.Null()])),
    config: Type.Optional(Type.Union([RunConfigSchema, Type.Null()])),
    context: Type.Optional(Type.Union([JsonObjectSchema, Type.Null()])),
    metadata: Type.Optional(Type.Union([JsonObjectSchema, Type.Null()])),
    stream_mode: Type.Optional(Type.Union([StreamModeSchema, Type.Array(StreamModeSchema, { maxItems: 8 })])),
    stream_subgraphs: Type.Optional(Type.Boolean()),
    stream_resumable: Type.Optional(Type.Boolean()),
    on_disconnect: Type.Optional(OnDisconnectSchema),
    multitask_strategy: Type.Optional(MultitaskStrategySchema),
    if_not_exists: Type.Optional(Type.Union([Type.Literal('reject'), Type.Literal('create')])),
    on_completion: Type.Optional(OnCompletionSchema),
    checkpoint: Type.Optional(Type.Union([CheckpointRefSchema, Type.Null()])),
    checkpoint_id: Type.Optional(Type.String({ maxLength: 128 })),
    interrupt_before: Type.Optional(NodeListSchema),
    interrupt_after: Type.Optional(NodeListSchema),
    after_seconds: Type.Optional(Type.Union([AfterSecondsSchema, Type.Null()])),
    webhook: Type.Optional(Type.Union([WebhookSchema, Type.Null()])),
    durability: Type.Optional(Type.Union([Type.Literal('sync'), Type.Literal('async'), Type.Literal('exit'), Type.Null()])),
    checkpoint_during: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    feedback_keys: Type.Optional(Type.Union([Type.Array(Type.String({ maxLength: 256 }), { maxItems: 64 }), Type.Null()])),
    langsmith_tracer: Type.Optional(
      Type.Union([
        Type.Object(
          { project_name: Type.Optional(Type.String({ maxLength: 1024 })), example_id: Type.Optional(Type.String({ maxLength: 128 })) },
          { additionalProperties: false },
        ),
        Type.Null(),
      ]),
    ),
    strict_resume: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  },
  { additionalProperties: false },
);
export type RunCreate = Static<typeof RunCreateSchema>;
