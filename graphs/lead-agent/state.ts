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

export interface SandboxInfo {
  /** The thread's own sandbox: its files live in the thread's folder, so the id is the thread's. */
  sandbox_id: string;
}

export const LeadAgentState = Annotation.Root({
  ...MessagesAnnotation.spec,
  /** Absent until the thread is named: the spec types it as a string, so it is never null. */
  title: Annotation<string | undefined>({ reducer: (_, next) => next }),
  /** Virtual paths of the files the agent presented, in order, without repeats. */
  artifacts: Annotation<string[]>({
    reducer: (current, next) => [...new Set([...(current ?? []), ...(next ?? [])])],
    default: () => [],
  }),
  /** Which sandbox holds the thread's files: set on the first run, as DeerFlow's UI expects an object. */
  sandbox: Annotation<SandboxInfo | null>({ reducer: (_, next) => next, default: () => null }),
  thread_data: Annotation<ThreadData | null>({ reducer: (_, next) => next, default: () => null }),
  todos: Annotation<Todo[]>({ reducer: (_, next) => next, default: () => [] }),
});

export type LeadAgentStateType = typeof LeadAgentState.State;
export type LeadAgentUpdate = typeof LeadAgentState.Update;
