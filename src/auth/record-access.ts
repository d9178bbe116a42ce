// Who may reach which record. Another user's record answers 404, exactly as one that does not
// exist, so that ids cannot be probed; an admin reaches every record without a Redis read.
//
// Everything under a thread (its runs, state, history, streams, uploads, artifacts and crons) is
// reached through the thread's id, so the check on that id guards them all. An id nobody holds
// passes: the route then makes the record, or says 404 itself.
import type { WarrenError } from '../errors.js';
import { matchesAccessFilter, OPEN_ACCESS, type AccessAction, type AccessPolicy, type AccessResource } from './access.js';
import type { AssistantStore } from '../store/assistants.js';
import { CronNotFoundError, type CronStore } from '../crons/crons.js';
import type { RunStore } from '../store/runs.js';
import type { ThreadStore } from '../store/threads.js';
import { AssistantNotFoundError, RunNotFoundError, ThreadNotFoundError } from '../store/store.errors.js';
import { ANONYMOUS_USER, isAdmin, mayReach, type Identity } from './identity.js';

interface Ownership {
  /** Null for a record from before owners existed: it is the anonymous user's. */
  owner: string | null;
  exists: boolean;
}

/** Whether the identity reaches a record: one it may reach by owner, or a free id. */
const ownsOrFree = (identity: Identity, { owner, exists }: Ownership): boolean => (owner === null && !exists) || mayReach(identity, owner);

export interface RecordAccessDeps {
  threads: Pick<ThreadStore, 'ownership' | 'claim' | 'metadataOf'>;
  assistants: Pick<AssistantStore, 'ownership' | 'get'>;
  crons: Pick<CronStore, 'ownership' | 'get'>;
  runs: Pick<RunStore, 'threadOf'>;
  /** System assistants (a configured graph's id) are everyone's to read and run. */
  isSystemAssistant(assistantId: string): boolean;
  /** A custom auth module's handlers, asked after the owner check (OPEN_ACCESS: none). */
  policy?: AccessPolicy;
}

/** The check for one route parameter: the id it names, and what the route does with it. */
export type RecordCheck = (identity: Identity, id: string, action: AccessAction) => Promise<void>;

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
  readonly byParam: Readonly<Record<string, RecordCheck>>;
}

export function createRecordAccess(deps: RecordAccessDeps): RecordAccess {
  const reachesThread = async (identity: Identity, threadId: string): Promise<boolean> =>
    isAdmin(identity) || ownsOrFree(identity, await deps.threads.ownership(threadId));

  const requireThread = async (identity: Identity, threadId: string): Promise<void> => {
    if (!(await reachesThread(identity, threadId))) throw new ThreadNotFoundError(`Thread ${threadId} not found`);
  };
  const requireAssistant = async (identity: Identity, assistantId: string): Promise<void> => {
    if (isAdmin(identity) || deps.isSystemAssistant(assistantId)) return;
    if (!ownsOrFree(identity, await deps.assistants.ownership(assistantId))) throw new AssistantNotFoundError(`Assistant ${assistantId} not found`);
  };
  const requireCron = async (identity: Identity, cronId: string): Promise<void> => {
    if (isAdmin(identity)) return;
    if (!ownsOrFree(identity, await deps.crons.ownership(cronId))) throw new CronNotFoundError(`Cron ${cronId} not found`);
  };

  const policy = deps.policy ?? OPEN_ACCESS;
  /**
   * The custom handlers' say on one record: a refusal throws (403, or the handler's own status);
   * a filter the record's metadata does not match answers 404, as LangGraph does.
   */
  const askHandlers = async (
    identity: Identity,
    resource: AccessResource,
    action: AccessAction,
    value: Record<string, unknown>,
    metadata: () => Promise<Record<string, unknown> | undefined>,
    notFound: () => WarrenError,
  ): Promise<void> => {
    const filter = await policy.check({ identity, resource, action, value });
    if (filter === null) return;
    const found = await metadata();
    if (found !== undefined && !matchesAccessFilter(found, filter)) throw notFound();
  };

  const checkThread: RecordCheck = async (identity, threadId, action) => {
    const notFound = () => new ThreadNotFoundError(`Thread ${threadId} not found`);
    if (!(await reachesThread(identity, threadId))) throw notFound();
    await askHandlers(identity, 'threads', action, { thread_id: threadId }, async () => (await deps.threads.metadataOf(threadId)) ?? undefined, notFound);
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
      if ((await deps.threads.claim(threadId, identity.user)) !== identity.user) throw new ThreadNotFoundError(`Thread ${threadId} not found`);
    },
    byParam: {
      thread_id: checkThread,
      // A run id alone (`/runs/{run_id}/stream`) is reached through its thread.
      run_id: async (identity, runId, action) => {
        const threadId = await deps.runs.threadOf(runId);
        if (threadId !== null) {
          await checkThread(identity, threadId, action).catch((err: unknown) => {
            throw err instanceof ThreadNotFoundError ? new RunNotFoundError(`Run ${runId} not found`) : err;
          });
        }
      },
      assistant_id: async (identity, assistantId, action) => {
        await requireAssistant(identity, assistantId);
        const notFound = () => new AssistantNotFoundError(`Assistant ${assistantId} not found`);
        await askHandlers(identity, 'assistants', action, { assistant_id: assistantId }, async () => (await deps.assistants.get(assistantId))?.assistant.metadata, notFound);
      },
      cron_id: async (identity, cronId, action) => {
        await requireCron(identity, cronId);
        const notFound = () => new CronNotFoundError(`Cron ${cronId} not found`);
        await askHandlers(identity, 'crons', action, { cron_id: cronId }, async () => (await deps.crons.get(cronId))?.metadata, notFound);
      },
    },
  };
}
