// The lead agent's state: what `values` holds for a thread.
import { Annotation, MessagesAnnotation } from '@langchain/langgraph';

export interface Todo {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
}

export interface ThreadData {
  workspace_path: string;
  uploads_path: string;
  outputs_path: string;
}

export const LeadAgentState = Annotation.Root({
  ...MessagesAnnotation.spec,
  title: Annotation<string | null>({ reducer: (_, next) => next, default: () => null }),
  /** Virtual paths of the files the agent presented, in order, without repeats. */
  artifacts: Annotation<string[]>({
    reducer: (current, next) => [...new Set([...(current ?? []), ...(next ?? [])])],
    default: () => [],
  }),
  sandbox: Annotation<Record<string, unknown> | null>({ reducer: (_, next) => next, default: () => null }),
  thread_data: Annotation<ThreadData | null>({ reducer: (_, next) => next, default: () => null }),
  todos: Annotation<Todo[]>({ reducer: (_, next) => next, default: () => [] }),
});

export type LeadAgentStateType = typeof LeadAgentState.State;
export type LeadAgentUpdate = typeof LeadAgentState.Update;
