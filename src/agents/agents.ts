// Custom agents: named agents with their own SOUL.md, model and tool groups, run by the lead agent.
// API side, here: `/api/agents` (agents.routes.ts, .schemas.ts, .service.ts) and the agent records
// in Redis (custom-agent-store.ts). Worker side: the lead agent reads the record when a run names
// the agent (workers/agent/graph-services.ts, graphs/lead-agent/lead-agent.ts).
// This module is the feature's door: code outside src/agents/ imports only from here (the API's
// composition roots also reach its routes and service).
export { createCustomAgentStore, isAgentName, TOOL_GROUPS } from './custom-agent-store.js';
export type { CustomAgent, CustomAgentStore } from './custom-agent-store.js';
export { AgentExistsError, AgentModelUnknownError, AgentNameInvalidError, AgentNotFoundError, AgentToolGroupUnknownError } from './agents.errors.js';
