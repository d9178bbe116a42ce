// Chat models from config.yaml entries. Only the base URL distinguishes a local test server
// from a hosted provider: these are the real provider clients.
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { ChatModelOptions } from '../../graphs/graph-services.js';
import type { ModelConfig } from '../../src/config/app-config.schemas.js';
import { resolveEnvRef } from '../../src/config/load-config.js';
import { PROVIDER_KEY_VARIABLES } from '../../src/config/secrets.js';
import { RunError } from '../../src/errors.js';
import { keyMaskingFetch } from './key-masking-fetch.js';

export type Provider = 'openai' | 'anthropic' | 'deepseek' | 'ollama';

/** `use` values as DeerFlow writes them (LangChain class paths) map onto our providers. */
const CLASS_PATHS: Record<string, Provider> = {
  'langchain_openai:ChatOpenAI': 'openai',
  'langchain_anthropic:ChatAnthropic': 'anthropic',
  'langchain_deepseek:ChatDeepSeek': 'deepseek',
  'langchain_ollama:ChatOllama': 'ollama',
};

const KEY_ENV: Record<Provider, string | null> = PROVIDER_KEY_VARIABLES;

export function providerOf(model: ModelConfig): Provider {
  const use = model.use.trim();
  if (use === 'openai' || use === 'anthropic' || use === 'deepseek' || use === 'ollama') return use;
  const mapped = CLASS_PATHS[use];
  if (!mapped) throw new RunError('ModelConfigError', `model ${model.name}: unsupported "use: ${use}"`);
  return mapped;
}

/** The API key for a model: its `api_key` (literal or `$NAME`), else the provider's usual variable. */
function apiKeyFor(model: ModelConfig, provider: Provider, env: NodeJS.ProcessEnv): string | undefined {
  const fallbackEnv = KEY_ENV[provider];
  const ref = model.api_key ?? (fallbackEnv ? `$${fallbackEnv}` : undefined);
  if (ref === undefined) return undefined;
  const { value, missing } = resolveEnvRef(ref, env);
  // A local OpenAI-compatible server (vLLM, Ollama's /v1) may need no key at all.
  if (missing && !(provider === 'openai' && model.base_url && model.api_key === undefined)) {
    throw new RunError('MissingApiKey', `model ${model.name}: ${missing} is not set`);
  }
  return value ?? (provider === 'openai' ? 'not-needed' : undefined);
}

export async function createChatModel(model: ModelConfig, options: ChatModelOptions = {}, env = process.env): Promise<BaseChatModel> {
  const provider = providerOf(model);
  const apiKey = apiKeyFor(model, provider, env);
  const thinking = Boolean(options.thinkingEnabled && model.supports_thinking);
  const fetch = keyMaskingFetch(apiKey);
  const common = {
    model: model.model,
    ...(model.max_tokens ? { maxTokens: model.max_tokens } : {}),
    ...(model.temperature !== undefined && !thinking ? { temperature: model.temperature } : {}),
    // No `streaming: true`: LangChain streams by itself whenever a token listener is attached
    // (the messages stream mode), and the forced-streaming path estimates token counts with a
    // tokenizer it downloads from the internet.
    maxRetries: 2,
  };
  switch (provider) {
    case 'openai': {
      const { ChatOpenAI } = await import('@langchain/openai');
      return new ChatOpenAI({
        ...common,
        apiKey,
        configuration: { fetch, ...(model.base_url ? { baseURL: model.base_url } : {}) },
        // Sent as the request's own field: the client only adds `reasoning` for model names it
        // knows, but OpenAI-compatible servers (vLLM, DeepSeek, OpenRouter) take it too.
        ...(thinking ? { modelKwargs: { reasoning_effort: options.reasoningEffort ?? 'medium' } } : {}),
      });
    }
    case 'anthropic': {
      const { ChatAnthropic } = await import('@langchain/anthropic');
      return new ChatAnthropic({
        ...common,
        apiKey,
        clientOptions: { fetch },
        ...(model.base_url ? { anthropicApiUrl: model.base_url } : {}),
        ...(thinking ? { thinking: { type: 'enabled', budget_tokens: Math.max(1024, Math.floor((model.max_tokens ?? 8192) / 2)) } } : {}),
      });
    }
    case 'deepseek': {
      const { ChatDeepSeek } = await import('@langchain/deepseek');
      return new ChatDeepSeek({ ...common, apiKey, configuration: { fetch, ...(model.base_url ? { baseURL: model.base_url } : {}) } });
    }
    case 'ollama': {
      const { ChatOllama } = await import('@langchain/ollama');
      return new ChatOllama({ ...common, ...(model.base_url ? { baseUrl: model.base_url } : {}), ...(thinking ? { think: true } : {}) });
    }
  }
}
