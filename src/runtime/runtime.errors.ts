// The causes the LangGraph runtime routes (assistants, threads, state, runs, the store) refuse with.
import { defineError } from '../errors.js';

/** A system assistant (a configured graph's own) is read-only: changing or deleting it is refused. */
export const AssistantReadOnlyError = defineError('WARREN_ASSISTANT_READ_ONLY', 409);
/** An assistant with that id exists already (`if_exists: raise`, or it is another user's). */
export const AssistantExistsError = defineError('WARREN_ASSISTANT_EXISTS', 409);
/** The assistant kept changing under other requests' writes; retrying may work. */
export const AssistantContendedError = defineError('WARREN_ASSISTANT_CONTENDED', 409);
/** The assistant has no version of that number. */
export const AssistantVersionNotFoundError = defineError('WARREN_ASSISTANT_VERSION_NOT_FOUND', 404);
/** The thread has no graph to apply a state update with. */
export const ThreadGraphMissingError = defineError('WARREN_THREAD_GRAPH_MISSING', 400);
/** A state update names a node (`as_node`) the thread's graph does not have. */
export const GraphNodeUnknownError = defineError('WARREN_GRAPH_NODE_UNKNOWN', 422);
/** The graph cannot apply the state update as given (LangGraph's InvalidUpdateError). */
export const StateUpdateInvalidError = defineError('WARREN_STATE_UPDATE_INVALID', 422);
/** A `checkpoint_ns` names a subgraph the thread's graph does not have. */
export const SubgraphNotFoundError = defineError('WARREN_SUBGRAPH_NOT_FOUND', 404);
/** A Last-Event-ID to resume a run's stream from is not an event id of that stream. */
export const StreamCursorInvalidError = defineError('WARREN_STREAM_CURSOR_INVALID', 400);
/** A store namespace is not one LangGraph allows: empty, a label empty or holding `.`, or `*` outside a listing. */
export const NamespaceInvalidError = defineError('WARREN_NAMESPACE_INVALID', 422);
/** The store namespace is another user's (a user's namespaces start with their user id). */
export const NamespaceNotFoundError = defineError('WARREN_NAMESPACE_NOT_FOUND', 404);
/** A store search asks for a semantic `query`, and no embedding model is configured (`store.index`). */
export const SemanticSearchUnconfiguredError = defineError('WARREN_SEMANTIC_SEARCH_UNCONFIGURED', 422);
