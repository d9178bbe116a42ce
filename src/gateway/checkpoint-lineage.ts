// Reading a thread's main line of checkpoints the way DeerFlow's branch and replay routes do:
// from the head back through each checkpoint's parent, looking at the messages each one holds.
// Messages are read loosely: a stored checkpoint holds LangChain message objects, a wire state
// holds their JSON, and both answer to these helpers.
import type { CheckpointTuple } from '@langchain/langgraph-checkpoint';
import type { RedisCheckpointSaver } from '../store/checkpointer.js';

/** How far back a branch or a replay looks for its checkpoint (DeerFlow scans a bounded history too). */
export const LINEAGE_SCAN_LIMIT = 500;

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function messageId(message: unknown): string | null {
  const id = isRecord(message) ? message.id : undefined;
  return typeof id === 'string' && id !== '' ? id : null;
}

export function messageType(message: unknown): string | null {
  if (!isRecord(message)) return null;
  const getType = message.getType;
  const type = typeof getType === 'function' ? (getType as () => unknown).call(message) : message.type;
  if (type === 'AIMessageChunk') return 'ai';
  if (type === 'HumanMessageChunk') return 'human';
  return typeof type === 'string' ? type : null;
}

export function additionalKwargs(message: unknown): Record<string, unknown> {
  const kwargs = isRecord(message) ? message.additional_kwargs : undefined;
  return isRecord(kwargs) ? kwargs : {};
}

/** The text of a message: its string content, or its text parts joined. */
export function messageText(message: unknown): string {
  const content = isRecord(message) ? message.content : undefined;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('');
}

export function toolCallsOf(message: unknown): unknown[] {
  const calls = isRecord(message) ? message.tool_calls : undefined;
  return Array.isArray(calls) ? calls : [];
}

/** A human or AI message the UI shows (DeerFlow hides those marked `hide_from_ui`). */
export const isVisible = (message: unknown): boolean =>
  additionalKwargs(message).hide_from_ui !== true && ['human', 'ai'].includes(messageType(message) ?? '');
export const isVisibleHuman = (message: unknown): boolean => isVisible(message) && messageType(message) === 'human';
export const isVisibleAi = (message: unknown): boolean => isVisible(message) && messageType(message) === 'ai';

export function messagesOf(tuple: CheckpointTuple): unknown[] {
  const messages: unknown = tuple.checkpoint.channel_values.messages;
  return Array.isArray(messages) ? messages : [];
}

export const checkpointIdOf = (tuple: CheckpointTuple): string => String(tuple.config.configurable?.checkpoint_id ?? tuple.checkpoint.id);

/** The thread's root checkpoints from the head back along parents, at most `limit` of them. */
export async function* lineage(
  checkpointer: Pick<RedisCheckpointSaver, 'getTuple'>,
  threadId: string,
  from?: string,
  limit = LINEAGE_SCAN_LIMIT,
): AsyncGenerator<CheckpointTuple> {
  let next: string | undefined = from;
  for (let i = 0; i < limit; i++) {
    const tuple = await checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: '', ...(next ? { checkpoint_id: next } : {}) } });
    if (!tuple) return;
    yield tuple;
    next = tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;
    if (!next) return;
  }
}

/** The newest checkpoint on the line from `from` that does not yet hold the message: where a replay of it starts. */
export async function checkpointBefore(
  checkpointer: Pick<RedisCheckpointSaver, 'getTuple'>,
  threadId: string,
  messageIdToFind: string,
  from?: string,
): Promise<CheckpointTuple | null> {
  for await (const tuple of lineage(checkpointer, threadId, from)) {
    if (!messagesOf(tuple).some((m) => messageId(m) === messageIdToFind)) return tuple;
  }
  return null;
}
