// What a running graph may use from the process that hosts it. Declared here, beside the graphs
// that use it, and implemented by the worker (workers/agent/graph-services.ts), which owns the
// model clients, the sandbox, the tools and MCP. The API reads state only: it passes none, so
// it never loads a tool implementation or a provider client.
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { BaseCheckpointSaver, BaseStore } from '@langchain/langgraph-checkpoint';
import type { Logger } from 'pino';
import type { AppConfig, ModelConfig } from '../src/config/app-config.schemas.js';
import type { TaskDispatcher } from '../src/queue/task-queue.js';
import type { MemoryDocument } from '../src/memory/memory.js';
import type { CustomAgentStore } from '../src/agents/agents.js';
import type { RunOptions } from './lead-agent/run-options.js';
import type { SubagentKind } from './lead-agent/subagents.js';

export interface ChatModelOptions {
  thinkingEnabled?: boolean;
  reasoningEffort?: 'minimal' | 'low' | 'medium' | 'high';
}

export interface RunTools {
  tools: StructuredToolInterface[];
  /** Whether the bash tool is among them (the prompt says so). */
  bash: boolean;
}

/** The tools a run or a sub-agent gets; built once per process, picked per run. */
export interface Toolbox {
  /** `toolGroups` (a custom agent's) keeps only the tools of those groups, plus the always-on ones. */
  forRun(
    options: RunOptions,
    model: ModelConfig,
    extra: { task?: StructuredToolInterface; toolGroups?: readonly string[] | null },
  ): Promise<RunTools>;
  forSubagent(kind: SubagentKind): Promise<StructuredToolInterface[]>;
}

export interface GraphServices {
  /** WARREN_HOME: threads' user-data folders. */
  home: string;
  /** Folder holding `public/` and `custom/` skills. */
  skillsDir: string;
  extensionsConfigPath: string;
  /** A client for a configured model. */
  chatModel(entry: ModelConfig, options: ChatModelOptions): Promise<BaseChatModel>;
  toolbox: Toolbox;
  /** Custom agents, read when a run names one (`agent_name`). */
  customAgents?: Pick<CustomAgentStore, 'get'>;
  /** The memory of the user who owns the thread, for the lead agent's prompt; left out, the prompt has none. */
  memory?: { read(threadId: string): Promise<MemoryDocument> };
  /** Runs sub-agent tasks as queued jobs on any worker; left out, they run in this process. */
  tasks?: TaskDispatcher;
}

/** What a graph factory gets as its second argument, from the process that hosts it. */
export interface GraphContext {
  checkpointer: BaseCheckpointSaver;
  /** The long-term store nodes reach as `config.store` / `runtime.store`. */
  store?: BaseStore;
  /** Handed to graph factories as their second argument (the built-in agent reads models from it). */
  appConfig: AppConfig;
  /** Given by workers, which run graphs; the API only reads state and leaves them out. */
  services?: GraphServices;
  /** Backs the SDK's `getLogger()` that graphs log through. */
  log?: Logger;
}
