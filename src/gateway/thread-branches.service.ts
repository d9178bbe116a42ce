// DeerFlow's branches: a new thread that starts from a finished assistant turn of another, with
// the conversation up to that turn and the thread's files. The branch's head is a copy of the
// source's checkpoint that ends with the turn (so its history feed, read from checkpoints, shows
// those messages at once, as the branch's seed turns), under a copy of the checkpoint before the
// turn's question (so the turn can be regenerated there), both without the source's sandbox
// binding. The new thread is the caller's.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Identity } from '../auth/identity.js';
import type { StateService } from '../runtime/state.service.js';
import type { RedisCheckpointSaver } from '../store/checkpointer.js';
import { nowIso } from '../store/records.js';
import type { ThreadStore } from '../store/threads.js';
import { copyThreadFiles } from '../workspace/thread-copy.js';
import type { ThreadFiles } from '../workspace/thread-files.js';
import { checkpointBefore, checkpointIdOf, isVisible, isVisibleHuman, lineage, messageId, messagesOf, messageType } from './checkpoint-lineage.js';
import { ReplayRefusedError } from './gateway.errors.js';
import type { Branch, BranchBody } from './thread-branches.schemas.js';

export interface ThreadBranchesDeps {
  threads: Pick<ThreadStore, 'require' | 'create' | 'setValues' | 'remove'>;
  checkpointer: Pick<RedisCheckpointSaver, 'getTuple' | 'forkCheckpoint' | 'deleteThread'>;
  state: Pick<StateService, 'get'>;
  files: Pick<ThreadFiles, 'threadDir'>;
}

/** DeerFlow's metadata key that marks a branch. */
const BRANCH_KEY = 'deerflow_branch';
/** Channels bound to the source thread (its sandbox): the branch's first run sets its own. */
const UNINHERITED = ['sandbox', 'thread_data'] as const;
const NOT_BRANCHABLE = 'This turn can no longer be branched from.';

/** Every target is an assistant message of these, and nothing visible follows the last. */
function endsWithTurn(messages: readonly unknown[], targets: ReadonlySet<string>): boolean {
  const indexes = [...targets].map((id) => messages.findIndex((m) => messageId(m) === id));
  if (indexes.some((i) => i < 0 || messageType(messages[i]) !== 'ai')) return false;
  return !messages.slice(Math.max(...indexes) + 1).some(isVisible);
}

export function createThreadBranchesService(deps: ThreadBranchesDeps, log: FastifyBaseLogger) {
  return {
    async branch(threadId: string, body: BranchBody, identity: Identity): Promise<Branch> {
      const source = await deps.threads.require(threadId);
      const targets = new Set([body.message_id, ...(body.message_ids ?? [])]);
      let found: { id: string; messages: unknown[]; values: Record<string, unknown> } | null = null;
      for await (const tuple of lineage(deps.checkpointer, threadId)) {
        const messages = messagesOf(tuple);
        if (endsWithTurn(messages, targets)) {
          found = { id: checkpointIdOf(tuple), messages, values: tuple.checkpoint.channel_values };
          break;
        }
      }
      if (!found) throw new ReplayRefusedError(NOT_BRANCHABLE);
      const first = Math.min(...[...targets].map((id) => found.messages.findIndex((m) => messageId(m) === id)));
      const question = found.messages.slice(0, first).findLast(isVisibleHuman);
      const questionId = messageId(question);
      if (!questionId) throw new ReplayRefusedError(NOT_BRANCHABLE);
      // As DeerFlow's replay base: the source's checkpoint before the turn's question goes under
      // the branch's head, so the branch can regenerate or edit the turn it starts from.
      const base = await checkpointBefore(deps.checkpointer, threadId, questionId, found.id);

      const branchId = randomUUID();
      const now = nowIso();
      const branchMetadata = {
        [BRANCH_KEY]: true,
        branch_parent_thread_id: threadId,
        branch_parent_checkpoint_id: found.id,
        branch_parent_message_id: body.message_id,
        branch_created_at: now,
      };
      const inherited = Object.fromEntries(['graph_id', 'assistant_id'].filter((k) => k in source.metadata).map((k) => [k, source.metadata[k]]));
      await deps.threads.create({ threadId: branchId, metadata: { ...inherited, ...branchMetadata }, ifExists: 'raise', owner: identity.user });
      try {
        const overrides: Record<string, unknown> = Object.fromEntries(UNINHERITED.filter((k) => k in found.values).map((k) => [k, null]));
        if (body.title) overrides.title = body.title;
        const stamp = { ...branchMetadata, source: 'fork', created_at: now };
        const baseId = base ? await deps.checkpointer.forkCheckpoint(threadId, checkpointIdOf(base), branchId, overrides, stamp) : null;
        await deps.checkpointer.forkCheckpoint(threadId, found.id, branchId, overrides, stamp, baseId ?? undefined);
        await deps.threads.setValues(branchId, (await deps.state.get(branchId)).values as Record<string, unknown>);
      } catch (err) {
        // A branch whose history could not be written is not left behind half made.
        await deps.checkpointer.deleteThread(branchId);
        await deps.threads.remove(branchId);
        throw err;
      }

      let workspace: Branch['workspace_clone_mode'];
      try {
        workspace = (await copyThreadFiles(deps.files, threadId, branchId)) === 'copied' ? 'current_thread_best_effort' : 'not_found';
      } catch (err) {
        // As DeerFlow: the branch is usable without its files; the answer says they were not copied.
        log.warn({ err, thread_id: threadId, branch_thread_id: branchId }, 'branch files not copied');
        workspace = 'failed';
      }
      return {
        thread_id: branchId,
        parent_thread_id: threadId,
        parent_checkpoint_id: found.id,
        branched_from_message_id: body.message_id,
        workspace_clone_mode: workspace,
        history_seed_mode: found.messages.length > 0 ? 'seeded' : 'skipped_empty',
      };
    },
  };
}

export type ThreadBranchesService = ReturnType<typeof createThreadBranchesService>;
