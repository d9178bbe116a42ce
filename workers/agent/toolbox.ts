// Which tools a run gets: the sandbox's file and shell tools, web tools, clarification,
// list_uploaded_files, the image viewer for vision models, write_todos in plan mode, task when
// sub-agents are on, the enabled MCP servers' tools, and (as DeerFlow binds them) setup_agent in
// a bootstrap run or update_agent in a custom agent's chat. Built once per process; picked per run.
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { Logger } from 'pino';
import type { Toolbox } from '../../graphs/graph-services.js';
import type { AppConfig } from '../../src/config/app-config.schemas.js';
import { createThreadFiles } from '../../src/workspace/thread-files.js';
import { createSetupAgentTool, createUpdateAgentTool, type AgentToolsDeps } from '../tools/agent-tools.js';
import { createClarificationTool } from '../tools/clarification.js';
import { createSandboxTools } from '../tools/sandbox-tools.js';
import { writeTodosTool } from '../tools/todos.js';
import { createViewImageTool } from '../tools/view-image.js';
import { createListUploadedFilesTool } from '../tools/uploads-tool.js';
import { createWebTools } from '../tools/web-tools.js';

const SUBAGENT_BASH_TOOLS = new Set(['bash', 'read_file', 'ls', 'write_file']);
/**
 * The group of each groupable built-in tool, as DeerFlow names them; MCP tools are `mcp`. The
 * others (present_files, ask_clarification, view_image, write_todos, task) are always on.
 */
const TOOL_GROUP: Record<string, string> = {
  web_search: 'web',
  web_fetch: 'web',
  ls: 'file:read',
  read_file: 'file:read',
  glob: 'file:read',
  grep: 'file:read',
  write_file: 'file:write',
  str_replace: 'file:write',
  bash: 'bash',
};

export interface ToolboxDeps {
  /** WARREN_HOME: threads' user-data folders. */
  home: string;
  skillsDir: string;
  /** Tools of the enabled MCP servers, cached per process. */
  mcpTools?: () => Promise<StructuredToolInterface[]>;
  log: Logger;
  /** The bubblewrap executable; left out it is looked for, null acts as if it were absent (tests). */
  bwrapPath?: string | null;
  /** Custom agents and thread owners, for setup_agent and update_agent; left out, neither is offered. */
  agents?: Omit<AgentToolsDeps, 'modelNames'>;
}

export function createToolbox(appConfig: AppConfig, services: ToolboxDeps): Toolbox {
  const files = createThreadFiles(services.home);
  const base = createSandboxTools({
    files,
    skillsDir: services.skillsDir,
    sandbox: appConfig.sandbox,
    log: services.log,
    ...(services.bwrapPath !== undefined ? { bwrapPath: services.bwrapPath } : {}),
  });
  const web = createWebTools(appConfig.web, { allowPrivateNetwork: appConfig.web.fetch_allow_private_networks });
  const clarification = createClarificationTool();
  const viewImage = createViewImageTool({ files, skillsDir: services.skillsDir });
  const listUploads = createListUploadedFilesTool(files);
  const agentTools = services.agents ? { ...services.agents, modelNames: appConfig.models.map((m) => m.name) } : null;
  const setupAgent = agentTools ? createSetupAgentTool(agentTools) : null;
  const updateAgent = agentTools ? createUpdateAgentTool(agentTools) : null;

  const mcp = async (): Promise<StructuredToolInterface[]> => {
    if (!services.mcpTools) return [];
    try {
      return await services.mcpTools();
    } catch (err) {
      services.log.warn({ err }, 'MCP tools unavailable for this run');
      return [];
    }
  };

  return {
    async forRun(options, model, extra) {
      const sandbox = await base;
      const groups = extra.toolGroups ? new Set(extra.toolGroups) : null;
      const allowed = (tool: StructuredToolInterface) => {
        const group = TOOL_GROUP[tool.name];
        return !groups || group === undefined || groups.has(group);
      };
      const tools: StructuredToolInterface[] = [...sandbox.tools, ...web, clarification, listUploads].filter(allowed);
      if (model.supports_vision) tools.push(viewImage);
      if (options.planMode) tools.push(writeTodosTool);
      if (options.subagents && extra.task) tools.push(extra.task);
      if (!groups || groups.has('mcp')) tools.push(...(await mcp()));
      // DeerFlow: bootstrap gets setup_agent (never update_agent); a named agent's chat gets
      // update_agent, except from the GitHub channel; the default agent neither.
      if (options.isBootstrap && setupAgent) tools.push(setupAgent);
      else if (options.agentName && options.channelName !== 'github' && updateAgent) tools.push(updateAgent);
      return { tools, bash: sandbox.bash && tools.some((t) => t.name === 'bash') };
    },

    async forSubagent(kind) {
      const sandbox = await base;
      if (kind === 'bash') return sandbox.tools.filter((t) => SUBAGENT_BASH_TOOLS.has(t.name));
      // Presenting files is the lead agent's job: a sub-agent's state has no artifacts.
      return [...sandbox.tools.filter((t) => t.name !== 'present_files'), ...web, ...(await mcp())];
    },
  };
}
