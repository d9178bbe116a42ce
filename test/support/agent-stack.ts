// A stack whose lead agent talks to the scripted model: the set-up every agent test shares.
import { agentScript, type AgentScript } from './agent-script.js';
import { startScriptedOpenAI, type ScriptedOpenAI } from './scripted-openai.js';
import { collect, userInput, type SseEvent } from './sse.js';
import { startStack, type Stack, type StackOptions } from './stack.js';

export interface AgentStack {
  stack: Stack;
  llm: ScriptedOpenAI;
  script: AgentScript;
  /** Forgets queued answers and recorded requests (between tests). */
  reset(): void;
  /** One lead_agent run on the scripted model, streamed to its end. */
  run(threadId: string, content: string, configurable?: Record<string, unknown>, streamMode?: string[]): Promise<SseEvent[]>;
  close(): Promise<void>;
}

export interface AgentStackOptions extends Omit<StackOptions, 'config'> {
  /** Extra fields of the `scripted` model entry (e.g. supports_vision). */
  model?: Record<string, unknown>;
  /** More model entries after `scripted`. */
  moreModels?: Record<string, unknown>[];
  /** The rest of config.yaml. */
  config?: Record<string, unknown>;
}

export async function startAgentStack(options: AgentStackOptions = {}): Promise<AgentStack> {
  const script = agentScript();
  const llm = await startScriptedOpenAI((request) => script.route(request));
  const { model, moreModels, config, ...stackOptions } = options;
  const stack = await startStack({
    ...stackOptions,
    config: {
      models: [{ name: 'scripted', use: 'openai', model: 'scripted-1', base_url: llm.url, api_key: 'test-key', ...model }, ...(moreModels ?? [])],
      ...config,
    },
  });
  return {
    stack,
    llm,
    script,
    reset() {
      script.lead.length = 0;
      script.sub.length = 0;
      script.memory.length = 0;
      llm.requests.length = 0;
    },
    run: (threadId, content, configurable = {}, streamMode = ['values', 'custom']) =>
      collect(
        stack.client.runs.stream(threadId, 'lead_agent', {
          input: userInput(content),
          streamMode: streamMode as never,
          config: { recursion_limit: 100, configurable: { model_name: 'scripted', ...configurable } },
        }),
      ),
    async close() {
      await stack.close();
      await llm.close();
    },
  };
}
