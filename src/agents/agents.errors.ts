// The causes the custom agent routes, and runs that name an agent, refuse with.
import { defineError } from '../errors.js';

/** The custom agent does not exist, or is another user's. */
export const AgentNotFoundError = defineError('WARREN_AGENT_NOT_FOUND', 404);
/** A custom agent with that name exists already (names are unique across users). */
export const AgentExistsError = defineError('WARREN_AGENT_EXISTS', 409);
/** A value given as an agent name is not one (letters, digits and hyphens, at most 64). */
export const AgentNameInvalidError = defineError('WARREN_AGENT_NAME_INVALID', 422);
/** The agent's `model` is not a configured model. */
export const AgentModelUnknownError = defineError('WARREN_AGENT_MODEL_UNKNOWN', 422);
/** The agent's `tool_groups` names a group Warren does not have. */
export const AgentToolGroupUnknownError = defineError('WARREN_AGENT_TOOL_GROUP_UNKNOWN', 422);
