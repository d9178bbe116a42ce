// setup_agent and update_agent (#30): DeerFlow's refusals and answers, against a store held in a
// map (the Redis store and the whole flow are covered by test/agent/agent-bootstrap.test.ts).
import type { StructuredToolInterface } from '@langchain/core/tools';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CustomAgent } from '../../src/agents/agents.js';
import { createSetupAgentTool, createUpdateAgentTool, type AgentToolsDeps } from '../../workers/tools/agent-tools.js';

let records: Map<string, CustomAgent>;
let owners: Map<string, string>;
let setup: StructuredToolInterface;
let update: StructuredToolInterface;

beforeEach(() => {
  records = new Map();
  owners = new Map([['t-ann', 'ann'], ['t-bob', 'bob']]);
  const deps: AgentToolsDeps = {
    agents: {
      get: async (name) => records.get(name) ?? null,
      create: async (agent) => (records.has(agent.name) ? false : (records.set(agent.name, agent), true)),
      update: async (name, change) => {
        const current = records.get(name);
        if (!current) return null;
        const next = change(current);
        records.set(name, next);
        return next;
      },
    },
    ownerOf: async (threadId) => owners.get(threadId) ?? null,
    modelNames: ['gpt', 'claude'],
  };
  setup = createSetupAgentTool(deps);
  update = createUpdateAgentTool(deps);
});

const call = (tool: StructuredToolInterface, args: Record<string, unknown>, configurable: Record<string, unknown>) =>
  tool.invoke(args, { configurable: { thread_id: 't-ann', ...configurable } });

describe('setup_agent', () => {
  it("creates the run's agent for the thread's owner, under its lower-case name", async () => {
    expect(await call(setup, { soul: 'Be kind.', description: 'Kind one.' }, { agent_name: 'Kind-Bot' })).toBe("Agent 'Kind-Bot' created successfully!");
    expect(records.get('kind-bot')).toMatchObject({ name: 'kind-bot', soul: 'Be kind.', description: 'Kind one.', skills: null, owner: 'ann' });
    // Saving again in the same design chat rewrites it; skills [] means none.
    await call(setup, { soul: 'Be kinder.', description: 'Kinder.', skills: [] }, { agent_name: 'kind-bot' });
    expect(records.get('kind-bot')).toMatchObject({ soul: 'Be kinder.', skills: [], owner: 'ann' });
  });

  it("refuses an empty soul, a run without agent_name, and another user's name", async () => {
    await expect(call(setup, { soul: '  ', description: 'x' }, { agent_name: 'a' })).rejects.toThrow('soul content is empty; refusing to create agent with an empty SOUL.md');
    await expect(call(setup, { soul: 'x', description: 'x' }, {})).rejects.toThrow(/agent_name/);
    await call(setup, { soul: 'x', description: 'x' }, { agent_name: 'taken', thread_id: 't-bob' });
    await expect(call(setup, { soul: 'y', description: 'y' }, { agent_name: 'taken' })).rejects.toThrow(/another user/);
    expect(records.get('taken')).toMatchObject({ soul: 'x', owner: 'bob' });
  });
});

describe('update_agent', () => {
  beforeEach(async () => {
    await call(setup, { soul: 'Be kind.', description: 'Kind one.' }, { agent_name: 'kind-bot' });
  });

  it('changes only the fields given, and says which', async () => {
    expect(await call(update, { description: 'Kinder.', model: 'gpt', soul: 'none', skills: null }, { agent_name: 'Kind-Bot' })).toBe(
      "Agent 'kind-bot' updated successfully. Changed: description, model. The new configuration takes effect on the next user turn.",
    );
    expect(records.get('kind-bot')).toMatchObject({ description: 'Kinder.', model: 'gpt', soul: 'Be kind.' });
    expect(await call(update, { description: 'Kinder.' }, { agent_name: 'kind-bot' })).toBe(
      "No changes applied to agent 'kind-bot'. The provided values matched the existing config.",
    );
  });

  it("refuses as DeerFlow does", async () => {
    await expect(call(update, {}, { agent_name: 'kind-bot' })).rejects.toThrow(/^No fields provided/);
    await expect(call(update, { soul: ' ' }, { agent_name: 'kind-bot' })).rejects.toThrow(/soul content is empty/);
    await expect(call(update, { description: 'x' }, {})).rejects.toThrow(/only available inside a custom agent's chat/);
    await expect(call(update, { model: 'nope' }, { agent_name: 'kind-bot' })).rejects.toThrow("Unknown model 'nope'. Pass a model name that exists in config.yaml's models section.");
    await expect(call(update, { tool_groups: ['web', 'teleport'] }, { agent_name: 'kind-bot' })).rejects.toThrow(/Unknown tool group 'teleport'/);
    await expect(call(update, { description: 'x' }, { agent_name: 'ghost' })).rejects.toThrow(
      "Agent 'ghost' does not exist for the current user. Use setup_agent to create a new agent first.",
    );
    await expect(call(update, { description: 'x' }, { agent_name: 'kind-bot', thread_id: 't-bob' })).rejects.toThrow(/does not exist for the current user/);
    await expect(call(update, { description: 'x' }, { agent_name: 'kind-bot', channel_name: 'github' })).rejects.toThrow(/GitHub/);
  });
});
