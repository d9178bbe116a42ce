// DeerFlow's thumbs up or down on a run, stored per thread with the user who gave it
// (store/feedback.ts). A user reads and deletes only their own; the stats count every user's,
// as DeerFlow's do (Warren's threads have one owner, so in practice they are the owner's).
import type { Identity } from '../auth/identity.js';
import type { FeedbackRecord, FeedbackStore } from '../store/feedback.js';
import type { RunStore } from '../store/runs.js';
import { RunNotFoundError } from '../store/store.errors.js';
import { FeedbackNotFoundError, FeedbackRatingInvalidError } from './gateway.errors.js';
import type { Feedback, FeedbackCreate, FeedbackStats, FeedbackUpsert } from './feedback.schemas.js';

export interface FeedbackServiceDeps {
  feedback: FeedbackStore;
  runs: Pick<RunStore, 'get'>;
}

const checkRating = (rating: number): void => {
  if (rating !== 1 && rating !== -1) throw new FeedbackRatingInvalidError('rating must be +1 or -1');
};

const ofRun = (records: readonly FeedbackRecord[], runId: string) => records.filter((r) => r.run_id === runId);
const mine = (records: readonly FeedbackRecord[], identity: Identity) => records.filter((r) => r.user_id === identity.user);

export function createFeedbackService(deps: FeedbackServiceDeps) {
  const requireRun = async (threadId: string, runId: string): Promise<void> => {
    if (!(await deps.runs.get(threadId, runId))) throw new RunNotFoundError(`Run ${runId} not found`);
  };

  return {
    /** POST: a new row on the run. */
    async create(threadId: string, runId: string, body: FeedbackCreate, identity: Identity): Promise<Feedback> {
      checkRating(body.rating);
      await requireRun(threadId, runId);
      return deps.feedback.create({
        threadId, runId, userId: identity.user, rating: body.rating, comment: body.comment ?? null, messageId: body.message_id ?? null,
      });
    },

    /** PUT: the caller's row on the run, made or replaced. */
    async upsert(threadId: string, runId: string, body: FeedbackUpsert, identity: Identity): Promise<Feedback> {
      checkRating(body.rating);
      await requireRun(threadId, runId);
      return deps.feedback.upsert({ threadId, runId, userId: identity.user, rating: body.rating, comment: body.comment ?? null });
    },

    /** GET: the caller's rows on the run, oldest first. */
    async list(threadId: string, runId: string, identity: Identity): Promise<Feedback[]> {
      return mine(ofRun(await deps.feedback.ofThread(threadId), runId), identity);
    },

    async stats(threadId: string, runId: string): Promise<FeedbackStats> {
      const rows = ofRun(await deps.feedback.ofThread(threadId), runId);
      const positive = rows.filter((r) => r.rating === 1).length;
      const negative = rows.filter((r) => r.rating === -1).length;
      return { run_id: runId, total: rows.length, positive, negative };
    },

    /** DELETE …/feedback: the caller's rows on the run; 404 when there are none. */
    async removeMine(threadId: string, runId: string, identity: Identity): Promise<{ success: true }> {
      const rows = mine(ofRun(await deps.feedback.ofThread(threadId), runId), identity);
      if ((await deps.feedback.remove(threadId, rows)) === 0) throw new FeedbackNotFoundError('No feedback found for this run');
      return { success: true };
    },

    /** DELETE …/feedback/{feedback_id}: one of the caller's rows, on that run. */
    async remove(threadId: string, runId: string, feedbackId: string, identity: Identity): Promise<{ success: true }> {
      const row = await deps.feedback.get(threadId, feedbackId);
      if (!row || row.user_id !== identity.user) throw new FeedbackNotFoundError(`Feedback ${feedbackId} not found`);
      if (row.run_id !== runId) throw new FeedbackNotFoundError(`Feedback ${feedbackId} not found in run ${runId}`);
      await deps.feedback.remove(threadId, [row]);
      return { success: true };
    },

    /** The caller's latest row per run, for the history feed's `feedback` field. */
    async latestByRun(threadId: string, identity: Identity): Promise<Map<string, FeedbackRecord>> {
      const out = new Map<string, FeedbackRecord>();
      for (const row of mine(await deps.feedback.ofThread(threadId), identity)) out.set(row.run_id, row);
      return out;
    },
  };
}

export type FeedbackService = ReturnType<typeof createFeedbackService>;
