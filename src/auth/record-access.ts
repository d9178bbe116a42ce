// Who may reach which record. Another user's record answers 404, exactly as one that does not
// exist, so that ids cannot be probed; an admin reaches every record without a Redis read.
//
// Everything under a thread (its runs, state, history, streams, uploads, artifacts and crons) is
// reached through the thread's id, so the check on that id guards them all. An id nobody holds
// passes: the route then makes the record, or says 404 itself.
import { NotFoundError } from '../errors.js';
import type { AssistantStore } from '../store/assistants.js';
import type { CronStore } from '../store/crons.js';
import type { RunStore } from '../store/runs.js';
import type { ThreadStore } from '../store/threads.js';
import { ANONYMOUS_USER, isAdmin, type Identity } from './identity.js';

interface Ownership {
  /** Null for a record from before owners existed: it is the anonymous user's. */
  owner: string | null;
  exists: boolean;
}

/** Whether a user (not an admin) reaches a record: theirs, or a free id. */
const ownsOrFree = (identity: Identity, { owner, exists }: Ownership): boolean =>
  owner !== null ? owner === identity.user : !exists || identity.user === ANONYMOUS_USER;

export interface RecordAccessDeps {
  threads: Pick<ThreadStore, 'ownership' | 'claim'>;
  assistants: Pick<AssistantStore, 'ownership'>;
  crons: Pick<CronStore, 'ownership'>;
  runs: Pick<RunStore, 'threadOf'>;
  /** System assistants (a configured graph's id) are everyone's to read and run. */
  isSystemAssistant(assistantId: string): boolean;
}

export interface RecordAccess {
  /** Refuses (404) a thread id that is another user's. */
  requireThread(identity: Identity, threadId: string): Promise<void>;
  /** Whether the identity may reach the thread, without throwing. */
  reachesThread(identity: Identity, threadId: string): Promise<boolean>;
  /** Makes a free thread id the identity's (an upload before the thread's first run); refuses another's. */
  claimThread(identity: Identity, threadId: string): Promise<void>;
  requireAssistant(identity: Identity, assistantId: string): Promise<void>;
  requireCron(identity: Identity, cronId: string): Promise<void>;
  /** The check for each route parameter that names a record, for the gate in front of every route. */
  readonly byParam: Readonly<Record<string, (identity: Identity, id: string) => Promise<void>>>;
}

export function createRecordAccess(deps: RecordAccessDeps): RecordAccess {
  const reachesThread = async (identity: Identity, threadId: string): Promise<boolean> =>
    isAdmin(identity) || ownsOrFree(identity, await deps.threads.ownership(threadId));

  const requireThread = async (identity: Identity, threadId: string): Promise<void> => {
    if (!(await reachesThread(identity, threadId))) throw new NotFoundError(`Thread ${threadId} not found`);
  };
  const requireAssistant = async (identity: Identity, assistantId: string): Promise<void> => {
    if (isAdmin(identity) || deps.isSystemAssistant(assistantId)) return;
    if (!ownsOrFree(identity, await deps.assistants.ownership(assistantId))) throw new NotFoundError(`Assistant ${assistantId} not found`);
  };
  const requireCron = async (identity: Identity, cronId: string): Promise<void> => {
    if (isAdmin(identity)) return;
    if (!ownsOrFree(identity, await deps.crons.ownership(cronId))) throw new NotFoundError(`Cron ${cronId} not found`);
  };

  return {
    requireThread,
    reachesThread,
    requireAssistant,
    requireCron,
    async claimThread(identity, threadId) {
      if (isAdmin(identity)) {
        // An admin's upload claims a free id as a user's does (it never takes another's); the
        // open deployment's anonymous caller writes nothing.
        if (identity.user !== ANONYMOUS_USER) await deps.threads.claim(threadId, identity.user);
        return;
      }
      await requireThread(identity, threadId);
      // Two users uploading to one free id at once: the first claim wins, the other is refused.
      if ((await deps.threads.claim(threadId, identity.user)) !== identity.user) throw new NotFoundError(`Thread ${threadId} not found`);
    },
    byParam: {
      thread_id: requireThread,
      // A run id alone (`/runs/{run_id}/stream`) is reached through its thread.
      run_id: async (identity, runId) => {
        if (isAdmin(identity)) return;
        const threadId = await deps.runs.threadOf(runId);
        if (threadId !== null && !(await reachesThread(identity, threadId))) throw new NotFoundError(`Run ${runId} not found`);
      },
      assistant_id: requireAssistant,
      cron_id: requireCron,
    },
  };
}
