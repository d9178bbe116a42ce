// The gateway route group, mounted at /api: models, MCP configuration, skills, uploads, thread
// cleanup, history, DeerFlow's twins of the run and assistant routes, its console, feedback, goals, branches, regenerate and compaction, artifacts, custom agents, follow-up suggestions, input polish, DeerFlow's feature
// flags and thread MCP tasks, memory and chat channels. Multipart parsing is registered here, so only the gateway accepts it.
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { agentRoutes } from '../agents/agents.routes.js';
import type { AgentsService } from '../agents/agents.service.js';
import { artifactRoutes } from './artifacts.routes.js';
import { channelRoutes } from '../channels/channels.routes.js';
import type { ChannelsService } from '../channels/channels.service.js';
import { channelConnectionRoutes } from '../channels/channel-connections.routes.js';
import type { ChannelConnectionsService } from '../channels/channel-connections.service.js';
import { larkIntegrationRoutes } from '../channels/lark-integration.routes.js';
import type { LarkIntegrationService } from '../channels/lark-integration.service.js';
import { slackEventsRoutes } from '../channels/slack-events.routes.js';
import type { SlackEventsService } from '../channels/slack-events.service.js';
import { feishuEventRoutes } from '../channels/feishu-events.routes.js';
import type { FeishuEventsService } from '../channels/feishu-events.service.js';
import type { ArtifactsService } from './artifacts.service.js';
import type { UploadLimits } from './gateway-deps.js';
import type { McpService } from './mcp.service.js';
import { memoryRoutes } from '../memory/memory.routes.js';
import type { MemoryService } from '../memory/memory.service.js';
import type { ModelsService } from './models.service.js';
import type { SkillsService } from '../skills/skills.service.js';
import type { SuggestionsService } from '../suggestions/suggestions.service.js';
import { suggestionRoutes } from '../suggestions/suggestions.routes.js';
import { inputPolishRoutes } from '../input-polish/input-polish.routes.js';
import type { InputPolishService } from '../input-polish/input-polish.service.js';
import { featureRoutes } from './features.routes.js';
import { disabledFeatureRoutes } from './browser.routes.js';
import { mcpTaskRoutes } from './mcp-tasks.routes.js';
import type { ThreadCleanupService } from './threads.service.js';
import type { UploadsService } from '../uploads/uploads.service.js';
import { mcpRoutes } from './mcp.routes.js';
import { modelRoutes } from './models.routes.js';
import { skillRoutes } from '../skills/skills.routes.js';
import { customSkillRoutes } from '../skills/custom-skills.routes.js';
import type { CustomSkillsService } from '../skills/custom-skills.service.js';
import { threadCleanupRoutes } from './threads.routes.js';
import { deerflowThreadRoutes } from './deerflow-threads.routes.js';
import type { DeerFlowThreadsService } from './deerflow-threads.service.js';
import { threadMessagesRoutes } from './thread-messages.routes.js';
import type { ThreadMessagesService } from './thread-messages.service.js';
import { feedbackRoutes } from './feedback.routes.js';
import type { FeedbackService } from './feedback.service.js';
import { threadGoalRoutes } from './thread-goal.routes.js';
import type { ThreadGoalService } from './thread-goal.service.js';
import { runReplayRoutes } from './run-replay.routes.js';
import type { RunReplayService } from './run-replay.service.js';
import { threadBranchRoutes } from './thread-branches.routes.js';
import type { ThreadBranchesService } from './thread-branches.service.js';
import { threadCompactRoutes } from './thread-compact.routes.js';
import type { ThreadCompactService } from './thread-compact.service.js';
import type { TokenUsageService } from './token-usage.service.js';
import { uploadRoutes } from '../uploads/uploads.routes.js';
import type { RunHandlerDeps } from '../runtime/run-handlers.js';
import { deerflowRunRoutes } from './deerflow-runs.routes.js';
import type { DeerFlowRunsService } from './deerflow-runs.service.js';
import { deerflowAssistantRoutes } from './deerflow-assistants.routes.js';
import type { DeerFlowAssistantsService } from './deerflow-assistants.service.js';
import { consoleRoutes } from './console.routes.js';
import type { ConsoleService } from './console.service.js';
import { scheduledTaskRoutes } from '../crons/scheduled-tasks.routes.js';
import type { ScheduledTasksService } from '../crons/scheduled-tasks.service.js';

/** The gateway's services, built once by the composition root (api-server.ts). */
export interface GatewayServices {
  models: ModelsService;
  mcp: McpService;
  skills: SkillsService;
  /** DeerFlow's custom skill editor, with history and rollback. */
  customSkills: CustomSkillsService;
  uploads: UploadsService;
  uploadLimits: UploadLimits;
  cleanup: ThreadCleanupService;
  /** DeerFlow's /api/threads routes over Warren's threads. */
  threads: DeerFlowThreadsService;
  tokenUsage: TokenUsageService;
  /** DeerFlow's message feeds, read from the threads' checkpoints. */
  history: ThreadMessagesService;
  /** DeerFlow's run feedback, goals, branches, regenerate preparations and compaction. */
  feedback: FeedbackService;
  goal: ThreadGoalService;
  branches: ThreadBranchesService;
  replay: RunReplayService;
  compaction: ThreadCompactService;
  artifacts: ArtifactsService;
  agents: AgentsService;
  suggestions: SuggestionsService;
  inputPolish: InputPolishService;
  memory: MemoryService;
  channels: ChannelsService;
  /** DeerFlow's Channels settings: providers, connections, connect codes, runtime credentials. */
  channelConnections: ChannelConnectionsService;
  /** DeerFlow's Integrations › Lark, as far as it sets up the Feishu/Lark channel. */
  lark: LarkIntegrationService;
  slackEvents: SlackEventsService;
  feishuEvents: FeishuEventsService;
  scheduledTasks: ScheduledTasksService;
  /** The runtime's run handling, which DeerFlow's run twins share with /api/langgraph. */
  runHandling: RunHandlerDeps;
  /** DeerFlow's run records, assistants and operations console. */
  dfRuns: DeerFlowRunsService;
  dfAssistants: DeerFlowAssistantsService;
  console: ConsoleService;
}

export async function gatewayRoutes(app: FastifyInstance, deps: GatewayServices): Promise<void> {
  // Limits are set per route (uploads, skill archives); a part over its limit is truncated and
  // the route answers with its own message rather than the plugin's.
  await app.register(multipart, { throwFileSizeLimit: false, limits: { fields: 20, fieldSize: 64 * 1024, headerPairs: 100 } });
  // A request refused before its body was read (an upload over a limit) would otherwise hold its
  // connection while the client keeps sending: close it once the answer is out.
  app.addHook('onError', async (request, reply) => {
    if (!request.raw.complete) void reply.header('connection', 'close');
  });
  // Each route plugin gets only the service it uses.
  await app.register(modelRoutes, { models: deps.models });
  await app.register(mcpRoutes, { mcp: deps.mcp });
  await app.register(skillRoutes, { skills: deps.skills });
  await app.register(customSkillRoutes, { customSkills: deps.customSkills });
  await app.register(uploadRoutes, { uploads: deps.uploads, limits: deps.uploadLimits });
  await app.register(threadCleanupRoutes, { cleanup: deps.cleanup, tokenUsage: deps.tokenUsage });
  await app.register(deerflowThreadRoutes, { threads: deps.threads });
  await app.register(threadMessagesRoutes, { history: deps.history });
  await app.register(deerflowRunRoutes, { ...deps.runHandling, dfRuns: deps.dfRuns });
  await app.register(deerflowAssistantRoutes, { dfAssistants: deps.dfAssistants });
  await app.register(consoleRoutes, { console: deps.console });
  await app.register(feedbackRoutes, { feedback: deps.feedback });
  await app.register(threadGoalRoutes, { goal: deps.goal });
  await app.register(threadBranchRoutes, { branches: deps.branches });
  await app.register(runReplayRoutes, { replay: deps.replay });
  await app.register(threadCompactRoutes, { compaction: deps.compaction });
  await app.register(artifactRoutes, { artifacts: deps.artifacts });
  await app.register(agentRoutes, { agents: deps.agents });
  await app.register(suggestionRoutes, { suggestions: deps.suggestions });
  await app.register(inputPolishRoutes, { inputPolish: deps.inputPolish });
  await app.register(featureRoutes);
  await app.register(disabledFeatureRoutes);
  await app.register(mcpTaskRoutes);
  await app.register(memoryRoutes, { memory: deps.memory });
  await app.register(channelRoutes, { channels: deps.channels });
  await app.register(channelConnectionRoutes, { connections: deps.channelConnections });
  await app.register(larkIntegrationRoutes, { lark: deps.lark });
  await app.register(slackEventsRoutes, { slackEvents: deps.slackEvents });
  await app.register(feishuEventRoutes, { feishuEvents: deps.feishuEvents });
  await app.register(scheduledTaskRoutes, { tasks: deps.scheduledTasks });
}
