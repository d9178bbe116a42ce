// /api/agents: custom agents, in DeerFlow's shapes.
import { Type, type Static } from 'typebox';
import { AGENT_NAME_PATTERN, CustomAgentSchema } from './custom-agent-store.js';

const { name, display_name, description, model, tool_groups, skills, soul } = CustomAgentSchema.properties;

/** The agent as answered: the stored record without its timestamps. */
export const AgentSchema = Type.Object({ name, display_name, description, model, tool_groups, skills, soul });
export type Agent = Static<typeof AgentSchema>;

export const AgentListSchema = Type.Object({ agents: Type.Array(AgentSchema) });
export type AgentList = Static<typeof AgentListSchema>;

export const AgentCreateSchema = Type.Object(
  {
    name,
    display_name: Type.Optional(display_name),
    description: Type.Optional(description),
    model: Type.Optional(model),
    tool_groups: Type.Optional(tool_groups),
    skills: Type.Optional(skills),
    soul: Type.Optional(soul),
  },
  { additionalProperties: false },
);
export type AgentCreate = Static<typeof AgentCreateSchema>;

/** Every field optional: what is sent changes, `null` clears (as in DeerFlow). */
export const AgentUpdateSchema = Type.Object(
  {
    display_name: Type.Optional(display_name),
    description: Type.Optional(Type.Union([description, Type.Null()])),
    model: Type.Optional(model),
    tool_groups: Type.Optional(tool_groups),
    skills: Type.Optional(skills),
    soul: Type.Optional(Type.Union([soul, Type.Null()])),
  },
  { additionalProperties: false },
);
export type AgentUpdate = Static<typeof AgentUpdateSchema>;

export const AgentParamsSchema = Type.Object({ name: Type.String({ pattern: AGENT_NAME_PATTERN }) });

export const AgentCheckQuerySchema = Type.Object({ name: Type.String({ pattern: AGENT_NAME_PATTERN }) });
export const AgentCheckSchema = Type.Object({ available: Type.Boolean(), name: Type.String() });
export type AgentCheck = Static<typeof AgentCheckSchema>;
