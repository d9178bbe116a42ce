// DeerFlow's manual compaction: the thread's older context summarised by the summarisation model
// so that later model calls send the summary and the recent messages. The model call is a worker's
// model task (model clients live there); the API reads the thread and writes the result. The
// summary is appended as one hidden message that names the last message it covers
// (graphs/lead-agent/compaction.ts), so the chat the UI shows stays whole, as DeerFlow's does.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import {
  activeContext,
  COMPACTED_THROUGH,
  cutIndex,
  estimateTextTokens,
  SUMMARY_PREFIX,
  transcriptOf,
  type MessageView,
} from '../../graphs/lead-agent/compaction.js';
import type { CustomAgentStore } from '../agents/agents.js';
import type { SummarizationConfig } from '../config/app-config.schemas.js';
import { OptionUnsupportedError } from '../errors.js';
import { runModelTask, THREAD_COMPACT_TASK_KIND, type TaskDispatcher } from '../queue/task-queue.js';
import type { StateService } from '../runtime/state.service.js';
import type { RunStore } from '../store/runs.js';
import { ThreadBusyError } from '../store/store.errors.js';
import { additionalKwargs, messageId, messageText, messageType } from './checkpoint-lineage.js';
import { CompactionDisabledError, CompactionFailedError } from './gateway.errors.js';
import type { Compact, CompactBody } from './thread-compact.schemas.js';

export const COMPACT_TIMEOUT_MS = 120_000;

export interface ThreadCompactDeps {
  state: Pick<StateService, 'get' | 'update'>;
  runs: Pick<RunStore, 'inflight'>;
  agents: Pick<CustomAgentStore, 'get'>;
  tasks: Pick<TaskDispatcher, 'run'>;
  config: SummarizationConfig;
  timeoutMs?: number;
}

const view = (m: unknown): MessageView => ({ id: messageId(m), type: messageType(m), kwargs: additionalKwargs(m), text: messageText(m) });

/** How many of the newest messages fit in `tokens`. */
function keptWithin(messages: readonly unknown[], tokens: number): number {
  let kept = 0;
  let used = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    used += estimateTextTokens([view(messages[i])]);
    if (used > tokens) break;
    kept += 1;
  }
  return kept;
}

export function createThreadCompactService(deps: ThreadCompactDeps, log: FastifyBaseLogger) {
  const { config } = deps;
  const notCompacted = (threadId: string): Compact => ({
    thread_id: threadId, compacted: false, reason: 'not_enough_messages', removed_message_count: 0,
    preserved_message_count: 0, summary_updated: false, checkpoint_id: null, total_tokens: 0,
  });

  /** DeerFlow's order: the request's model, the configured summariser, the agent's model, the default. */
  const modelFor = async (body: CompactBody): Promise<string | null> =>
    body.model_name ?? config.model_name ?? (body.agent_name ? ((await deps.agents.get(body.agent_name))?.model ?? null) : null);

  const busy = async (threadId: string): Promise<void> => {
    if ((await deps.runs.inflight(threadId)).length > 0) throw new ThreadBusyError('Thread has a run in flight. Compact after the run finishes.');
  };

  return {
    async compact(threadId: string, body: CompactBody): Promise<Compact> {
      if (!config.enabled) throw new CompactionDisabledError('Context compaction is disabled.');
      if (body.keep?.type === 'fraction') {
        throw new OptionUnsupportedError('keep.type "fraction" is not supported by Warren (it knows no model\'s context window); use "messages" or "tokens"');
      }
      await busy(threadId);
      const state = await deps.state.get(threadId);
      const values = Array.isArray(state.values) ? {} : state.values;
      const all: unknown[] = Array.isArray(values.messages) ? values.messages : [];
      const active = activeContext(all, view);
      if (body.force === false && estimateTextTokens(active.map(view)) < config.trigger_tokens) return notCompacted(threadId);
      const keep = !body.keep ? config.keep_messages : body.keep.type === 'messages' ? Math.floor(body.keep.value) : keptWithin(active, body.keep.value);
      const cut = cutIndex(active, keep, view);
      // A lone earlier summary is nothing to compact again.
      const older = active.slice(0, cut);
      if (older.filter((m) => typeof view(m).kwargs[COMPACTED_THROUGH] !== 'string').length < 2) return notCompacted(threadId);
      const through = messageId(older.at(-1));
      if (!through) return notCompacted(threadId);

      let summary: string;
      try {
        summary = (
          await runModelTask(deps.tasks, {
            kind: THREAD_COMPACT_TASK_KIND,
            threadId,
            request: { transcript: transcriptOf(older, view) },
            modelName: await modelFor(body),
            timeoutMs: deps.timeoutMs ?? COMPACT_TIMEOUT_MS,
          })
        ).trim();
      } catch (err) {
        log.warn({ err, thread_id: threadId }, 'thread compaction failed');
        throw new CompactionFailedError('Failed to compact thread context.', { cause: err });
      }
      if (summary === '') throw new CompactionFailedError('Failed to compact thread context.');
      // A run may have started while the model wrote: its messages would land after the summary's cut.
      await busy(threadId);
      const written = await deps.state.update(threadId, {
        values: {
          messages: [
            {
              type: 'human',
              id: randomUUID(),
              content: `${SUMMARY_PREFIX}${summary}`,
              additional_kwargs: { summary: true, hide_from_ui: true, [COMPACTED_THROUGH]: through },
            },
          ],
        },
      });
      const checkpointId = written.checkpoint.checkpoint_id;
      return {
        thread_id: threadId,
        compacted: true,
        reason: null,
        removed_message_count: older.length,
        preserved_message_count: active.length - older.length,
        summary_updated: true,
        checkpoint_id: typeof checkpointId === 'string' ? checkpointId : null,
        total_tokens: estimateTextTokens(older.map(view)),
      };
    },
  };
}

export type ThreadCompactService = ReturnType<typeof createThreadCompactService>;
