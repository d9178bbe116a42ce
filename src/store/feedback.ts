// DeerFlow's run feedback (thumbs up or down, an optional comment), one hash per thread under
// its tag, so the thread's deletion takes it along. A thread holds a handful of rows, so reads
// take the whole hash and filter; a user's feedback on a run has a fixed id (the by-user index),
// so two replicas answering one PUT each update the same row rather than add two.
import { randomUUID } from 'node:crypto';
import { keys } from './keys.js';
import type { JsonReader } from './json.js';
import { nowIso } from './records.js';
import type { RedisClient } from './redis.js';

export interface FeedbackRecord {
  feedback_id: string;
  run_id: string;
  thread_id: string;
  user_id: string | null;
  message_id: string | null;
  /** +1 or -1. */
  rating: number;
  comment: string | null;
  created_at: string;
}

export interface FeedbackInput {
  threadId: string;
  runId: string;
  userId: string;
  rating: number;
  comment: string | null;
}

export interface FeedbackStore {
  /** A new row (POST: one user may leave several on a run). */
  create(input: FeedbackInput & { messageId: string | null }): Promise<FeedbackRecord>;
  /** The user's row on the run, made or replaced (PUT). */
  upsert(input: FeedbackInput): Promise<FeedbackRecord>;
  get(threadId: string, feedbackId: string): Promise<FeedbackRecord | null>;
  /** The thread's rows, oldest first. */
  ofThread(threadId: string): Promise<FeedbackRecord[]>;
  /** Deletes rows by id; returns how many were there. */
  remove(threadId: string, records: readonly FeedbackRecord[]): Promise<number>;
  /** Every row of the thread (its deletion). */
  removeThread(threadId: string): Promise<void>;
}

const userField = (runId: string, userId: string) => JSON.stringify([runId, userId]);

export function createFeedbackStore(redis: RedisClient, json: JsonReader): FeedbackStore {
  const write = async (record: FeedbackRecord): Promise<FeedbackRecord> => {
    await redis.hset(keys.threadFeedback(record.thread_id), record.feedback_id, JSON.stringify(record));
    return record;
  };
  const store: FeedbackStore = {
    async create({ threadId, runId, userId, rating, comment, messageId }) {
      const record: FeedbackRecord = {
        feedback_id: randomUUID(), run_id: runId, thread_id: threadId, user_id: userId, message_id: messageId, rating, comment, created_at: nowIso(),
      };
      await write(record);
      // The first row of a user on a run is the one a later PUT updates.
      await redis.hsetnx(keys.threadFeedbackByUser(threadId), userField(runId, userId), record.feedback_id);
      return record;
    },

    async upsert({ threadId, runId, userId, rating, comment }) {
      const index = keys.threadFeedbackByUser(threadId);
      await redis.hsetnx(index, userField(runId, userId), randomUUID());
      const feedbackId = (await redis.hget(index, userField(runId, userId))) as string;
      const existing = await store.get(threadId, feedbackId);
      return write({
        feedback_id: feedbackId, run_id: runId, thread_id: threadId, user_id: userId,
        message_id: existing?.message_id ?? null, rating, comment, created_at: nowIso(),
      });
    },

    async get(threadId, feedbackId) {
      const raw = await redis.hget(keys.threadFeedback(threadId), feedbackId);
      return raw === null ? null : json<FeedbackRecord | null>(raw, null, `${keys.threadFeedback(threadId)}#${feedbackId}`);
    },

    async ofThread(threadId) {
      const all = await redis.hgetall(keys.threadFeedback(threadId));
      return Object.entries(all)
        .map(([id, raw]) => json<FeedbackRecord | null>(raw, null, `${keys.threadFeedback(threadId)}#${id}`))
        .filter((record): record is FeedbackRecord => record !== null)
        .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.feedback_id.localeCompare(b.feedback_id));
    },

    async remove(threadId, records) {
      if (records.length === 0) return 0;
      const removed = await redis.hdel(keys.threadFeedback(threadId), ...records.map((r) => r.feedback_id));
      // An index entry left pointing at a deleted row would make the next PUT revive its id: harmless, but drop it.
      const index = keys.threadFeedbackByUser(threadId);
      for (const record of records) {
        if (record.user_id === null) continue;
        const field = userField(record.run_id, record.user_id);
        if ((await redis.hget(index, field)) === record.feedback_id) await redis.hdel(index, field);
      }
      return removed;
    },

    async removeThread(threadId) {
      await redis.del(keys.threadFeedback(threadId), keys.threadFeedbackByUser(threadId));
    },
  };
  return store;
}
