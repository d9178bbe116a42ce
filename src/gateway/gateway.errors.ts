// The causes the gateway's own routes refuse with (models, MCP configuration and tasks, message history). Threads, files
// and skills have theirs in store.errors.ts, workspace.errors.ts and skills.errors.ts.
import { defineError } from '../errors.js';

/** No model of that name is configured in config.yaml. */
export const ModelNotFoundError = defineError('WARREN_MODEL_NOT_FOUND', 404);
/** An MCP env or header value was sent back masked (`***`), but no value is stored for it. */
export const McpSecretMissingError = defineError('WARREN_MCP_SECRET_MISSING', 400);
/** An MCP server entry is malformed: an unknown type, or a field its type does not allow. */
export const McpServerInvalidError = defineError('WARREN_MCP_SERVER_INVALID', 422);
/** A stdio MCP server's command is not allowed by the stdio policy. */
export const McpStdioRefusedError = defineError('WARREN_MCP_STDIO_REFUSED', 400);
/** GET /api/threads/{id}/messages/page was sent `after_seq`: it pages backwards only (DeerFlow's 422). */
export const MessageCursorUnsupportedError = defineError('WARREN_MESSAGE_CURSOR_UNSUPPORTED', 422);
/** A PATCH names an MCP server that extensions_config.json does not have. */
export const McpServerNotFoundError = defineError('WARREN_MCP_SERVER_NOT_FOUND', 404);
/** A PUT of the MCP configuration sent both `mcpServers` and `mcp_servers`, or neither. */
export const McpConfigKeyError = defineError('WARREN_MCP_CONFIG_KEY', 422);
/** No MCP background task of that id in the thread (Warren runs none). */
export const McpTaskNotFoundError = defineError('WARREN_MCP_TASK_NOT_FOUND', 404);
/** A browser control route: Warren runs no live browser, so it answers as DeerFlow does with the browser tools off. */
export const BrowserDisabledError = defineError('WARREN_BROWSER_DISABLED', 404);
/** POST /api/webhooks/github: Warren takes no GitHub deliveries, and DeerFlow mounts no route without a secret. */
export const GithubWebhooksDisabledError = defineError('WARREN_GITHUB_WEBHOOKS_DISABLED', 404);
/** Run feedback with a rating other than +1 or -1 (DeerFlow's 400). */
export const FeedbackRatingInvalidError = defineError('WARREN_FEEDBACK_RATING_INVALID', 400);
/** No feedback of that id on that run, or none of the caller's on the run. */
export const FeedbackNotFoundError = defineError('WARREN_FEEDBACK_NOT_FOUND', 404);
/** A goal objective that is only spaces (DeerFlow's 422). */
export const GoalObjectiveInvalidError = defineError('WARREN_GOAL_OBJECTIVE_INVALID', 422);
/** A regenerate, edit-and-rerun or branch that the thread's history does not allow (DeerFlow's 409s, each with its reason). */
export const ReplayRefusedError = defineError('WARREN_REPLAY_REFUSED', 409);
/** A regenerate names a message the thread's latest state does not hold, or the thread has no checkpoint yet. */
export const MessageNotFoundError = defineError('WARREN_MESSAGE_NOT_FOUND', 404);
/** POST /compact while `summarization.enabled` is off (DeerFlow's 409 "Context compaction is disabled."). */
export const CompactionDisabledError = defineError('WARREN_COMPACTION_DISABLED', 409);
/** No worker wrote the summary in time, or the model failed or answered nothing (DeerFlow's 500; the thread is unchanged). */
export const CompactionFailedError = defineError('WARREN_COMPACTION_FAILED', 503);
/** A stateless run's `config.configurable.thread_id` is not a thread id (DeerFlow's 422). */
export const RunThreadIdInvalidError = defineError('WARREN_RUN_THREAD_ID_INVALID', 422);
