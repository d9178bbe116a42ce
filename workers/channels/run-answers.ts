// Follows the runs a chat is owed answers for, from their event streams in Redis (any worker may
// be running them), and turns the events into what a chat shows: the answer's text as it grows
// (`messages` events: the model's chunks) and, when the run ends, its final text (the AI
// messages after the user's last one, from the last `values`), the files it presented
// (`values.artifacts` that were not there when it started) and how it ended.
import type { RunStreamHub, HubSubscription } from '../../src/streams/run-stream-hub.js';
import type { StreamEntry } from '../../src/store/run-stream.js';
import type { OwedReply } from '../../src/channels/channels.js';
import type { RunStatus } from '../../src/store/records.js';

export interface FinalAnswer {
  text: string;
  /** Virtual paths of the files the run presented. */
  artifacts: string[];
  /** The run's final status, or null if its record is gone. */
  status: RunStatus | null;
  /** The run's error message, when it failed. */
  error: string | null;
}

/** What a platform does with an answer: show it as it grows, then send it whole. */
export interface AnswerSink {
  /** The run is followed from its start (or anew, after a takeover). */
  start(owed: OwedReply): void;
  progress(owed: OwedReply, text: string): void;
  finish(owed: OwedReply, answer: FinalAnswer): Promise<void>;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The text of a message's content: a string, or the text blocks of a list. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((block) => (isObject(block) && block.type === 'text' && typeof block.text === 'string' ? block.text : '')).join('');
}

const messageType = (message: Json): string => {
  if (typeof message.type === 'string') return message.type;
  // The serialised form (`{lc, id: [..., 'AIMessageChunk'], kwargs}`).
  const id = Array.isArray(message.id) ? message.id : [];
  return typeof id.at(-1) === 'string' ? (id.at(-1) as string) : '';
};
const fieldsOf = (message: Json): Json => (isObject(message.kwargs) ? message.kwargs : message);
const isAi = (type: string) => type === 'ai' || type === 'AIMessage' || type === 'AIMessageChunk';
const isHuman = (type: string) => type === 'human' || type === 'HumanMessage';

/** The AI text after the last human message of a `values` state: this run's answer. */
export function answerOf(values: Json): string {
  const messages = Array.isArray(values.messages) ? values.messages.filter(isObject) : [];
  const lastHuman = messages.map(messageType).findLastIndex(isHuman);
  return messages
    .slice(lastHuman + 1)
    .filter((m) => isAi(messageType(m)))
    .map((m) => contentText(fieldsOf(m).content).trim())
    .filter((text) => text !== '')
    .join('\n\n');
}

const artifactsOf = (values: Json): string[] => (Array.isArray(values.artifacts) ? values.artifacts.filter((a): a is string => typeof a === 'string') : []);

/** One run's events folded into what the chat shows. */
function createAnswerState() {
  const streamed = new Map<string, string>();
  let firstArtifacts: string[] | null = null;
  let lastValues: Json | null = null;
  let error: string | null = null;
  return {
    /** Takes one event; true when the streamed text changed. */
    take(entry: StreamEntry): boolean {
      let data: unknown;
      try {
        data = JSON.parse(entry.data);
      } catch {
        // An entry that is not JSON carries nothing to show.
        return false;
      }
      if (entry.event === 'values' && isObject(data)) {
        firstArtifacts ??= artifactsOf(data);
        lastValues = data;
      } else if (entry.event === 'error' && isObject(data)) {
        error = typeof data.message === 'string' ? data.message : String(data.error ?? 'the run failed');
      } else if (entry.event === 'messages' && Array.isArray(data) && isObject(data[0])) {
        const chunk = data[0];
        const fields = fieldsOf(chunk);
        if (!isAi(messageType(chunk))) return false;
        const piece = contentText(fields.content);
        if (piece === '') return false;
        const id = typeof fields.id === 'string' ? fields.id : 'answer';
        streamed.set(id, (streamed.get(id) ?? '') + piece);
        return true;
      }
      return false;
    },
    text: () => [...streamed.values()].map((t) => t.trim()).filter((t) => t !== '').join('\n\n'),
    final(status: RunStatus | null): FinalAnswer {
      const values = lastValues ?? {};
      const before = new Set(firstArtifacts ?? []);
      const text = answerOf(values) || this.text();
      return { text, artifacts: artifactsOf(values).filter((a) => !before.has(a)), status, error };
    },
  };
}

export interface RunAnswersDeps {
  hub: Pick<RunStreamHub, 'subscribe'>;
  runStatus(threadId: string, runId: string): Promise<RunStatus | null>;
  sink: AnswerSink;
  /** The answer was delivered (or can never be): it is no longer owed. */
  settle(owed: OwedReply): Promise<void>;
  onError(err: unknown, owed: OwedReply): void;
}

export function createRunAnswers(deps: RunAnswersDeps) {
  const following = new Map<string, HubSubscription>();

  return {
    /** Follows a run from its first event until it ends, then sends its answer. Idempotent per run. */
    follow(owed: OwedReply): void {
      if (following.has(owed.run_id)) return;
      const state = createAnswerState();
      const subscription = deps.hub.subscribe(owed.thread_id, owed.run_id, '0', {
        onEntries: (entries) => {
          let changed = false;
          for (const entry of entries) changed = state.take(entry) || changed;
          if (changed) deps.sink.progress(owed, state.text());
        },
        onDone: () => {
          if (following.get(owed.run_id) !== subscription) return;
          void (async () => {
            try {
              const status = await deps.runStatus(owed.thread_id, owed.run_id);
              await deps.sink.finish(owed, state.final(status));
              await deps.settle(owed);
            } catch (err) {
              // Still owed: the next holder of the connection sends it.
              deps.onError(err, owed);
            } finally {
              following.delete(owed.run_id);
            }
          })();
        },
      });
      following.set(owed.run_id, subscription);
      deps.sink.start(owed);
    },

    /** Stops following every run (the connection is handed over): their answers stay owed. */
    stopAll(): void {
      for (const subscription of following.values()) subscription.stop();
      following.clear();
    },

    following: () => following.size,
  };
}

export type RunAnswers = ReturnType<typeof createRunAnswers>;
