// The secret values a configuration holds, gathered so that the loggers can mask them wherever
// they turn up: a provider's error that echoes its key, a stack trace, a stray debug line.
import type { AppConfig } from './app-config.schemas.js';
import { resolveEnvRef } from './load-config.js';

/** The variable each model provider's client reads when a model sets no api_key. */
export const PROVIDER_KEY_VARIABLES = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  deepseek: 'DEEPSEEK_API_KEY',
  ollama: null,
} as const;

// Masked too: the web search key's usual home, whether or not the config names it.
const KEY_VARIABLES = [...Object.values(PROVIDER_KEY_VARIABLES).filter((name) => name !== null), 'TAVILY_API_KEY'];

export function configSecrets(config: AppConfig, env: NodeJS.ProcessEnv, apiKeys: readonly string[] = []): string[] {
  const values = new Set<string>([...apiKeys, ...config.auth.api_keys.map((entry) => (typeof entry === 'string' ? entry : entry.key))]);
  const add = (value: string | undefined) => {
    if (value) values.add(value);
  };
  for (const model of config.models) add(resolveEnvRef(model.api_key, env).value);
  add(resolveEnvRef(config.web.search_api_key, env).value);
  add(resolveEnvRef(config.store.index?.api_key, env).value);
  add(resolveEnvRef(config.channels.telegram.bot_token, env).value);
  // Resolved at load (a Redis password is needed to start at all).
  add(config.redis?.password);
  for (const ref of [config.channels.slack.bot_token, config.channels.slack.app_token, config.channels.slack.signing_secret, config.channels.feishu.app_secret, config.channels.feishu.verification_token, config.channels.feishu.encrypt_key]) add(resolveEnvRef(ref, env).value);
  for (const provider of Object.values(config.auth.accounts.oidc)) add(provider.client_secret);
  add(env.WARREN_SESSION_SECRET);
  for (const name of KEY_VARIABLES) add(env[name]);
  return [...values];
}
