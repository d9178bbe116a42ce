// DeerFlow's setup_agent and update_agent: the lead agent writes the custom agent record that
// `/api/agents` serves (src/agents/custom-agent-store.ts), for the user who owns the run's
// thread. setup_agent is bound in bootstrap runs (the UI's "new agent" page), update_agent in a
// custom agent's own chat; toolbox.ts decides which. Refusals are thrown with DeerFlow's texts,
// and the agent loop answers them as `Error: …` tool messages, as DeerFlow does.
import type { StructuredToolInterface, ToolRunnableConfig } from '@langchain/core/tools';
import { Type } from 'typebox';
import {
  AgentExistsError,
  AgentModelUnknownError,
  AgentNotFoundError,
  AgentToolGroupUnknownError,
  TOOL_GROUPS,
  type CustomAgent,
  type CustomAgentStore,
} from '../../src/agents/agents.js';
import { ANONYMOUS_USER } from '../../src/auth/identity.js';
import { defineTool, nullable, threadIdOf } from './define-tool.js';
import { AgentToolUnavailableError, ToolArgumentInvalidError } from './tools.errors.js';

export interface AgentToolsDeps {
  agents: Pick<CustomAgentStore, 'get' | 'create' | 'update'>;
  /** The user who owns a thread (null: made before owners existed, the anonymous user's). */
  ownerOf(threadId: string): Promise<string | null>;
  /** The configured models' names, which update_agent's `model` must be one of. */
  modelNames: readonly string[];
}

/** The run's agent name as given (the record's key is its lower case), or null. */
function agentNameOf(config: ToolRunnableConfig): string | null {
  const name: unknown = config.configurable?.agent_name;
  return typeof name === 'string' && name !== '' ? name : null;
}

async function runOwner(deps: AgentToolsDeps, config: ToolRunnableConfig): Promise<string> {
  return (await deps.ownerOf(threadIdOf(config))) ?? ANONYMOUS_USER;
}

const ownedBy = (agent: CustomAgent, owner: string) => (agent.owner ?? ANONYMOUS_USER) === owner;

export function createSetupAgentTool(deps: AgentToolsDeps): StructuredToolInterface {
  const schema = Type.Object({
    soul: Type.String({ description: 'Full SOUL.md content: the agent\'s identity, purpose, personality and behaviour rules, in Markdown.' }),
    description: Type.String({ description: 'One line on what the agent is for (shown in the agent list).' }),
    skills: nullable(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
        maxItems: 256,
        description: 'Skills the agent may use; leave out for every enabled skill, [] for none.',
      }),
    ),
  });
  return defineTool(
    { name: 'setup_agent', description: 'Create the custom agent this conversation is designing: save its SOUL.md, description and skills.', schema },
    async ({ soul, description, skills }, config) => {
      if (soul.trim() === '') throw new ToolArgumentInvalidError('soul content is empty; refusing to create agent with an empty SOUL.md');
      const given = agentNameOf(config);
      // DeerFlow writes the default agent's SOUL.md here; Warren's default agent has none.
      if (!given) throw new AgentToolUnavailableError('setup_agent needs the name of the agent being created (agent_name in the run context).');
      const name = given.toLowerCase();
      const owner = await runOwner(deps, config);
      const fields = { soul, description, ...(skills !== undefined ? { skills } : {}) };
      // An upsert, as DeerFlow's: saving twice in one design chat rewrites the caller's own agent.
      for (let attempt = 0; attempt < 2; attempt++) {
        const now = new Date().toISOString();
        const existing = await deps.agents.get(name);
        if (existing) {
          if (!ownedBy(existing, owner)) throw new AgentExistsError(`an agent named '${name}' already exists for another user; pick another name.`);
          await deps.agents.update(name, (current) => ({ ...current, ...fields, updated_at: now }));
          return `Agent '${given}' created successfully!`;
        }
        const agent: CustomAgent = {
          name,
          display_name: null,
          description,
          model: null,
          tool_groups: null,
          skills: skills ?? null,
          soul,
          created_at: now,
          updated_at: now,
          owner,
        };
        if (await deps.agents.create(agent)) return `Agent '${given}' created successfully!`;
        // Created by someone else between our read and write: read again and decide.
      }
      throw new AgentExistsError(`an agent named '${name}' was created concurrently; try again.`);
    },
  );
}

/** DeerFlow treats the literal strings "null", "none" and "undefined" as a left-out argument. */
function given<T>(value: T | null | undefined): T | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string' && ['null', 'none', 'undefined'].includes(value.trim().toLowerCase())) return undefined;
  return value;
}

const sameList = (a: readonly string[] | null, b: readonly string[]) => a !== null && a.length === b.length && a.every((x, i) => x === b[i]);

export function createUpdateAgentTool(deps: AgentToolsDeps): StructuredToolInterface {
  const list = (what: string) => nullable(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 256, description: what }));
  const schema = Type.Object({
    soul: nullable(Type.String({ description: 'The full new SOUL.md (replaces the old one entirely).' })),
    description: nullable(Type.String({ description: 'The new one-line description.' })),
    skills: list('The skills the agent may use ([] for none).'),
    tool_groups: list(`The tool groups the agent may use (${TOOL_GROUPS.join(', ')}).`),
    model: nullable(Type.String({ description: "A model name from config.yaml's models section." })),
  });
  return defineTool(
    {
      name: 'update_agent',
      description: "Change this custom agent's own configuration: its SOUL.md, description, skills, tool groups or model. Pass only what changes.",
      schema,
    },
    async (input, config) => {
      if (config.configurable?.channel_name === 'github') throw new AgentToolUnavailableError('update_agent is not available from a GitHub channel.');
      const soul = given(input.soul);
      const description = given(input.description);
      const skills = given(input.skills);
      const toolGroups = given(input.tool_groups);
      const model = given(input.model);
      if ([soul, description, skills, toolGroups, model].every((v) => v === undefined)) {
        throw new ToolArgumentInvalidError('No fields provided. Pass at least one of: soul, description, skills, tool_groups, model. Leave out what should stay as it is.');
      }
      if (soul !== undefined && soul.trim() === '') throw new ToolArgumentInvalidError('soul content is empty; refusing to replace SOUL.md with nothing');
      const named = agentNameOf(config);
      if (!named) {
        throw new AgentToolUnavailableError("update_agent is only available inside a custom agent's chat. To create a new agent, use setup_agent instead.");
      }
      if (model !== undefined && !deps.modelNames.includes(model)) {
        throw new AgentModelUnknownError(`Unknown model '${model}'. Pass a model name that exists in config.yaml's models section.`);
      }
      const unknownGroup = toolGroups?.find((g) => !(TOOL_GROUPS as readonly string[]).includes(g));
      if (unknownGroup !== undefined) throw new AgentToolGroupUnknownError(`Unknown tool group '${unknownGroup}'. Known groups: ${TOOL_GROUPS.join(', ')}.`);
      const name = named.toLowerCase();
      const owner = await runOwner(deps, config);
      const missing = () => new AgentNotFoundError(`Agent '${name}' does not exist for the current user. Use setup_agent to create a new agent first.`);
      const current = await deps.agents.get(name);
      if (!current || !ownedBy(current, owner)) throw missing();
      const changed: string[] = [];
      if (soul !== undefined && soul !== current.soul) changed.push('soul');
      if (description !== undefined && description !== current.description) changed.push('description');
      if (model !== undefined && model !== current.model) changed.push('model');
      if (toolGroups !== undefined && !sameList(current.tool_groups, toolGroups)) changed.push('tool_groups');
      if (skills !== undefined && !sameList(current.skills, skills)) changed.push('skills');
      if (changed.length === 0) return `No changes applied to agent '${name}'. The provided values matched the existing config.`;
      const updated = await deps.agents.update(name, (agent) => ({
        ...agent,
        ...(soul !== undefined ? { soul } : {}),
        ...(description !== undefined ? { description } : {}),
        ...(model !== undefined ? { model } : {}),
        ...(toolGroups !== undefined ? { tool_groups: toolGroups } : {}),
        ...(skills !== undefined ? { skills } : {}),
        updated_at: new Date().toISOString(),
      }));
      if (!updated) throw missing();
      return `Agent '${name}' updated successfully. Changed: ${changed.join(', ')}. The new configuration takes effect on the next user turn.`;
    },
  );
}
