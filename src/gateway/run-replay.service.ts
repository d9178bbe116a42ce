// DeerFlow's regenerate and edit-and-rerun, prepared: the UI asks for the user message to send
// again (or its edited text) and the checkpoint before it, then starts an ordinary run with them
// on the same thread. The run forks the thread's line at that checkpoint; the answer it replaces
// stays in the older line (and in its run's record), as in DeerFlow.
import { randomUUID } from 'node:crypto';
import type { CheckpointTuple } from '@langchain/langgraph-checkpoint';
import type { RedisCheckpointSaver } from '../store/checkpointer.js';
import type { GoalStore } from '../store/goals.js';
import type { RunStore } from '../store/runs.js';
import type { ThreadStore } from '../store/threads.js';
import {
  additionalKwargs,
  checkpointBefore,
  checkpointIdOf,
  isRecord,
  isVisibleAi,
  isVisibleHuman,
  messageId,
  messagesOf,
  messageText,
  toolCallsOf,
} from './checkpoint-lineage.js';
import { MessageNotFoundError, ReplayRefusedError } from './gateway.errors.js';
import type { EditRegeneratePrepare, EditRegeneratePrepareBody, RegeneratePrepare, RegeneratePrepareBody } from './run-replay.schemas.js';
import type { ThreadMessagesService } from './thread-messages.service.js';

export interface RunReplayDeps {
  threads: Pick<ThreadStore, 'require'>;
  runs: Pick<RunStore, 'get'>;
  checkpointer: Pick<RedisCheckpointSaver, 'getTuple'>;
  goals: Pick<GoalStore, 'get'>;
  history: Pick<ThreadMessagesService, 'runOfMessage'>;
}

/** The message's `name`, when it has one. */
const nameOf = (message: unknown): string | undefined =>
  isRecord(message) && typeof message.name === 'string' && message.name !== '' ? message.name : undefined;

/** The user message as sent again: its text as one part, its id and kwargs kept, the UI's hiding mark dropped. */
function replayedHuman(message: unknown): Record<string, unknown> {
  const { hide_from_ui: _hidden, ...kwargs } = additionalKwargs(message);
  const id = messageId(message);
  const name = nameOf(message);
  return {
    type: 'human',
    content: [{ type: 'text', text: messageText(message) }],
    additional_kwargs: kwargs,
    ...(id ? { id } : {}),
    ...(name ? { name } : {}),
  };
}

/** The edited user message: a new id, the new text, and only the files and quoted contexts of the old one. */
function editedHuman(message: unknown, id: string, text: string): Record<string, unknown> {
  const source = additionalKwargs(message);
  const kwargs = Object.fromEntries(['files', 'referenced_message_contexts'].filter((k) => k in source).map((k) => [k, structuredClone(source[k])]));
  const name = nameOf(message);
  return { type: 'human', id, content: [{ type: 'text', text }], additional_kwargs: kwargs, ...(name ? { name } : {}) };
}

const checkpointAnswer = (tuple: CheckpointTuple) => ({ checkpoint_ns: '', checkpoint_id: checkpointIdOf(tuple), checkpoint_map: null });
const titleOf = (tuple: CheckpointTuple): string | null => {
  const title: unknown = tuple.checkpoint.channel_values.title;
  return typeof title === 'string' && title !== '' ? title : null;
};

export function createRunReplayService(deps: RunReplayDeps) {
  const head = async (threadId: string): Promise<CheckpointTuple> => {
    await deps.threads.require(threadId);
    const tuple = await deps.checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: '' } });
    if (!tuple) throw new MessageNotFoundError(`Thread ${threadId} has no checkpoint`);
    return tuple;
  };

  /** The checkpoint before the user message, on the head's line. */
  const baseBefore = async (threadId: string, latest: CheckpointTuple, humanId: string): Promise<CheckpointTuple> => {
    const base = await checkpointBefore(deps.checkpointer, threadId, humanId, checkpointIdOf(latest));
    if (!base) throw new ReplayRefusedError('Could not locate target user message in recent checkpoint history');
    return base;
  };

  const sourceRun = async (threadId: string, aiId: string): Promise<string> => {
    const runId = await deps.history.runOfMessage(threadId, aiId);
    if (runId === null) throw new ReplayRefusedError('Could not find source run for assistant message');
    return runId;
  };

  return {
    /** POST /threads/{id}/runs/regenerate/prepare: only the latest visible answer, from the checkpoint before its question. */
    async regenerate(threadId: string, body: RegeneratePrepareBody): Promise<RegeneratePrepare> {
      const latest = await head(threadId);
      const messages = messagesOf(latest);
      const index = messages.findIndex((m) => messageId(m) === body.message_id);
      if (index < 0) throw new MessageNotFoundError(`Message ${body.message_id} not found`);
      const target = messages[index];
      if (!isVisibleAi(target)) throw new ReplayRefusedError('Only visible assistant messages can be regenerated');
      if (messageId(messages.findLast(isVisibleAi)) !== body.message_id) throw new ReplayRefusedError('Only the latest assistant message can be regenerated');
      const human = messages.slice(0, index).findLast(isVisibleHuman);
      if (human === undefined) throw new ReplayRefusedError('Could not find the user message for this assistant response');
      const humanId = messageId(human);
      if (!humanId) throw new ReplayRefusedError('The source user message is missing an id');
      const targetRunId = await sourceRun(threadId, body.message_id);
      const base = await baseBefore(threadId, latest, humanId);
      const title = titleOf(latest);
      return {
        // The base may predate a rename: the current title is sent along so the rerun keeps it.
        input: { messages: [replayedHuman(human)], ...(title ? { title } : {}) },
        checkpoint: checkpointAnswer(base),
        metadata: { regenerate_from_message_id: body.message_id, regenerate_from_run_id: targetRunId, regenerate_checkpoint_id: checkpointIdOf(base) },
        target_run_id: targetRunId,
      };
    },

    /** POST /threads/{id}/runs/edit-regenerate/prepare: the latest finished turn, with its question rewritten. */
    async editRegenerate(threadId: string, body: EditRegeneratePrepareBody): Promise<EditRegeneratePrepare> {
      const text = body.replacement_text.trim();
      if (text === '') throw new ReplayRefusedError('Edited message cannot be empty');
      const latest = await head(threadId);
      const messages = messagesOf(latest);
      const goal = await deps.goals.get(threadId);
      if (goal?.status === 'active') throw new ReplayRefusedError('Cannot edit while a goal is active');
      const humanIndex = messages.findLastIndex(isVisibleHuman);
      if (humanIndex < 0 || messageId(messages[humanIndex]) !== body.human_message_id) {
        throw new ReplayRefusedError('Only the latest completed user turn can be edited');
      }
      const human = messages[humanIndex];
      const aiIndex = messages.findLastIndex((m, i) => i > humanIndex && isVisibleAi(m));
      const ai = aiIndex < 0 ? undefined : messages[aiIndex];
      if (ai === undefined || messageText(ai).trim() === '' || toolCallsOf(ai).length > 0) {
        throw new ReplayRefusedError('Only completed assistant text turns can be edited');
      }
      if (text === messageText(human).trim()) throw new ReplayRefusedError('Edited message is unchanged');
      const aiId = messageId(ai);
      if (!aiId) throw new ReplayRefusedError('The source assistant message is missing an id');
      const base = await baseBefore(threadId, latest, body.human_message_id);
      const targetRunId = await sourceRun(threadId, aiId);
      const run = await deps.runs.get(threadId, targetRunId);
      if (!run) throw new ReplayRefusedError('Could not find source run for assistant message');
      if (run.status !== 'success') throw new ReplayRefusedError('Only successful assistant runs can be edited and rerun');
      const replacementId = randomUUID();
      const group = run.metadata.edit_version_group_id;
      const title = titleOf(latest);
      return {
        // An untitled base is left so: its title would have come from the question being replaced.
        input: { messages: [editedHuman(human, replacementId, text)], ...(title && titleOf(base) ? { title } : {}) },
        checkpoint: checkpointAnswer(base),
        metadata: {
          replay_kind: 'edit',
          regenerate_from_message_id: aiId,
          regenerate_from_run_id: targetRunId,
          regenerate_checkpoint_id: checkpointIdOf(base),
          edit_from_message_id: body.human_message_id,
          edit_message_id: replacementId,
          edit_version_group_id: typeof group === 'string' && group !== '' ? group : body.human_message_id,
        },
        target_run_id: targetRunId,
        replacement_human_message_id: replacementId,
        source_message_ids: messages.slice(humanIndex, aiIndex + 1).flatMap((m) => messageId(m) ?? []),
      };
    },
  };
}

export type RunReplayService = ReturnType<typeof createRunReplayService>;
