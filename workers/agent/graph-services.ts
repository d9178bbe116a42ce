// The worker's GraphServices: its real model clients and its toolbox (sandbox, web, MCP).
// Built once per process; the lead agent and the sub-agent runner share it, so the sandbox
// (bubblewrap) is probed once.
import type { GraphServices } from '../../graphs/graph-services.js';
import type { AppConfig } from '../../src/config/app-config.schemas.js';
import type { TaskDispatcher } from '../../src/queue/task-queue.js';
import type { CustomAgentStore } from '../../src/agents/agents.js';
import { createChatModel } from './model-factory.js';
import { createToolbox, type ToolboxDeps } from './toolbox.js';

export interface WorkerGraphServicesOptions extends ToolboxDeps {
  extensionsConfigPath: string;
  tasks?: TaskDispatcher;
  customAgents?: Pick<CustomAgentStore, 'get'>;
  memory?: GraphServices['memory'];
}

export function createGraphServices(appConfig: AppConfig, options: WorkerGraphServicesOptions): GraphServices {
  const { extensionsConfigPath, tasks, customAgents, memory, ...toolboxDeps } = options;
  return {
    home: options.home,
    skillsDir: options.skillsDir,
    extensionsConfigPath,
    chatModel: (entry, modelOptions) => createChatModel(entry, modelOptions),
    toolbox: createToolbox(appConfig, toolboxDeps),
    ...(tasks ? { tasks } : {}),
    ...(customAgents ? { customAgents } : {}),
    ...(memory ? { memory } : {}),
  };
}
