// The secret values a configuration holds, gathered so that the loggers can mask them wherever
// they turn up: a provider's error that echoes its key, a stack trace, a stray debug line.
import type { AppConfig } from './app-config.schemas.js';
import { resolveEnvRef } from './load-config.js';

// Read by the model clients when a model sets no api_key (workers/agent/model-factory.ts).
const PROVIDER_KEY_VARIABLES = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'DEEPSEEK_API_KEY', 'TAVILY_API_KEY'];

export function configSecrets(config: AppConfig, env: NodeJS.ProcessEnv, apiKeys: readonly string[] = []): string[] {
  const values = new Set<string>([...apiKeys, ...config.auth.api_keys]);
  const add = (value: string | undefined) => {
    if (value) values.add(value);
  };
  for (const model of config.models) add(resolveEnvRef(model.api_key, env).value);
  add(resolveEnvRef(config.web.search_api_key, env).value);
  for (const name of PROVIDER_KEY_VARIABLES) add(env[name]);
  return [...values];
}
