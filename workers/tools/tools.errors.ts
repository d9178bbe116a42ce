// The causes the agent's tools fail a call with; the model reads the message as the tool's answer.
// Paths are refused with the workspace's and the sandbox's causes, outbound requests with net's.
import { defineError } from '../../src/errors.js';

/** A tool was called outside a run: no thread id, or no tool call id. */
export const ToolContextMissingError = defineError('WARREN_TOOL_CONTEXT_MISSING', 400);
/** An argument cannot be used as given: an empty command, a line range backwards or past the end, a malformed todo list. */
export const ToolArgumentInvalidError = defineError('WARREN_TOOL_ARGUMENT_INVALID', 400);
/** A file to be read as text holds binary data. */
export const ToolFileBinaryError = defineError('WARREN_TOOL_FILE_BINARY', 400);
/** A file is larger than the tool takes (view_image, str_replace). */
export const ToolFileTooLargeError = defineError('WARREN_TOOL_FILE_TOO_LARGE', 413);
/** str_replace's old_str is not in the file. */
export const ToolEditNoMatchError = defineError('WARREN_TOOL_EDIT_NO_MATCH', 400);
/** str_replace's old_str is in the file more than once, and replace_all is not set. */
export const ToolEditAmbiguousError = defineError('WARREN_TOOL_EDIT_AMBIGUOUS', 400);
/** view_image was given a file that is not a PNG, JPEG, GIF or WebP image. */
export const ToolImageTypeUnsupportedError = defineError('WARREN_TOOL_IMAGE_TYPE_UNSUPPORTED', 400);
/** present_files was given a file that is not under /mnt/user-data/outputs. */
export const ToolPresentOutsideOutputsError = defineError('WARREN_TOOL_PRESENT_OUTSIDE_OUTPUTS', 400);
/** web_fetch was given something that is not a URL. */
export const WebUrlInvalidError = defineError('WARREN_WEB_URL_INVALID', 400);
/** web_fetch got no page: an error status, no answer in time, or no connection. */
export const WebFetchFailedError = defineError('WARREN_WEB_FETCH_FAILED', 400);
/** web_fetch got content it does not read (binary data, an image, a PDF). */
export const WebContentUnsupportedError = defineError('WARREN_WEB_CONTENT_UNSUPPORTED', 400);
/** web_search has no provider to ask: its key or its address is not configured. */
export const WebSearchUnconfiguredError = defineError('WARREN_WEB_SEARCH_UNCONFIGURED', 400);
/** The search provider failed: no answer in time, an error status, or an answer without a results list. */
export const WebSearchFailedError = defineError('WARREN_WEB_SEARCH_FAILED', 400);
/** An MCP server's oauth block names a `$NAME` that is not set, so no token can be asked for. */
export const McpOAuthUnconfiguredError = defineError('WARREN_MCP_OAUTH_UNCONFIGURED', 500);
/** An MCP server's token endpoint gave no usable token: no answer, an error status, or an answer without one. */
export const McpOAuthTokenFailedError = defineError('WARREN_MCP_OAUTH_TOKEN_FAILED', 502);
/** An MCP server did not start and list its tools within the connect deadline. */
export const McpConnectTimeoutError = defineError('WARREN_MCP_CONNECT_TIMEOUT', 504);
/** setup_agent or update_agent was called in a run that names no custom agent (or, for update_agent, from a GitHub channel). */
export const AgentToolUnavailableError = defineError('WARREN_AGENT_TOOL_UNAVAILABLE', 400);
