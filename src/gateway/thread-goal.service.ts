// A thread's goal (DeerFlow's `/goal` command): what the user wants the thread to achieve, kept
// in Redis under the thread (store/goals.ts) and deleted with it. Setting one on a chat that has
// no thread yet (DeerFlow's /chats/new holds an id before its first run) claims the id for the
// caller, as a first upload does, so the goal is the owner's from the start.
//   DeerFlow's lead agent does not read the goal into its prompt: its gateway evaluates finished
// runs against it and starts hidden continuation turns. Warren keeps and answers the goal; it
// runs no such continuations (see README).
import type { Identity } from '../auth/identity.js';
import type { RecordAccess } from '../auth/record-access.js';
import type { GoalState, GoalStore } from '../store/goals.js';
import { nowIso } from '../store/records.js';
import type { RunStore } from '../store/runs.js';
import { ThreadBusyError } from '../store/store.errors.js';
import { GoalObjectiveInvalidError } from './gateway.errors.js';
import { MAX_GOAL_CONTINUATIONS, MAX_NO_PROGRESS_CONTINUATIONS, type GoalAnswer, type GoalBody } from './thread-goal.schemas.js';

export interface ThreadGoalServiceDeps {
  goals: GoalStore;
  runs: Pick<RunStore, 'inflight'>;
  claimThread: RecordAccess['claimThread'];
}

export function createThreadGoalService(deps: ThreadGoalServiceDeps) {
  const refuseBusy = async (threadId: string, what: string): Promise<void> => {
    if ((await deps.runs.inflight(threadId)).length > 0) {
      throw new ThreadBusyError(`Thread has a run in flight. ${what} the goal after the run finishes.`);
    }
  };

  return {
    async get(threadId: string): Promise<GoalAnswer> {
      return { goal: await deps.goals.get(threadId) };
    },

    async set(threadId: string, body: GoalBody, identity: Identity): Promise<GoalAnswer> {
      // DeerFlow's normalisation: runs of white space become one space.
      const objective = body.objective.trim().split(/\s+/).join(' ');
      if (objective === '') throw new GoalObjectiveInvalidError('Goal objective must not be empty.');
      await deps.claimThread(identity, threadId);
      await refuseBusy(threadId, 'Set');
      const now = nowIso();
      const goal: GoalState = {
        objective,
        status: 'active',
        created_at: now,
        updated_at: now,
        continuation_count: 0,
        max_continuations: body.max_continuations ?? MAX_GOAL_CONTINUATIONS,
        no_progress_count: 0,
        max_no_progress_continuations: MAX_NO_PROGRESS_CONTINUATIONS,
      };
      await deps.goals.set(threadId, goal);
      return { goal };
    },

    async clear(threadId: string): Promise<GoalAnswer> {
      await refuseBusy(threadId, 'Clear');
      await deps.goals.remove(threadId);
      return { goal: null };
    },
  };
}

export type ThreadGoalService = ReturnType<typeof createThreadGoalService>;
