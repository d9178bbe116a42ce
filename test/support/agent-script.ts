// Routes the scripted model's answers by who is asking: the lead agent, a sub-agent, the title
// or the summary call. Each test queues the lead and sub-agent turns it expects.
import { MEMORY_UPDATE_PROMPT_START } from '../../graphs/lead-agent/memory-update.js';
import type { ChatRequest, ScriptedReply } from './scripted-openai.js';

export interface AgentScript {
  lead: ScriptedReply[];
  sub: ScriptedReply[];
  /** Answers to memory updates, in order; then an empty revision. */
  memory: ScriptedReply[];
  title: string;
  route(request: ChatRequest): ScriptedReply;
  /** The requests the lead agent made, in order. */
  leadRequests(all: ChatRequest[]): ChatRequest[];
}

const systemOf = (request: ChatRequest) => {
  const first = request.messages[0];
  return first?.role === 'system' && typeof first.content === 'string' ? first.content : '';
};

export const isSubagentRequest = (r: ChatRequest) => /^You are a (command-line )?sub-agent/.test(systemOf(r));
const isTitleRequest = (r: ChatRequest) => systemOf(r).startsWith('Write a title');
const isSummaryRequest = (r: ChatRequest) => systemOf(r).startsWith('Summarise');
export const isMemoryUpdateRequest = (r: ChatRequest) => systemOf(r).startsWith(MEMORY_UPDATE_PROMPT_START);

export function agentScript(): AgentScript {
  const script: AgentScript = {
    lead: [],
    sub: [],
    memory: [],
    title: 'Scripted Title For This Thread',
    route(request) {
      if (isTitleRequest(request)) return { content: script.title };
      if (isSummaryRequest(request)) return { content: 'SUMMARY-OF-EARLIER-TURNS' };
      if (isMemoryUpdateRequest(request)) return script.memory.shift() ?? { content: '{}' };
      if (isSubagentRequest(request)) return script.sub.shift() ?? { content: 'sub-agent finished' };
      return script.lead.shift() ?? { content: 'Done.' };
    },
    leadRequests: (all) => all.filter((r) => !isSubagentRequest(r) && !isTitleRequest(r) && !isSummaryRequest(r) && !isMemoryUpdateRequest(r)),
  };
  return script;
}
