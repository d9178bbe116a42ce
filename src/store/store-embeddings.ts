// The embedding model of the store's semantic search, from `store.index`: the providers' real
// LangChain clients (only the base URL tells a local server from a hosted one).
import type { Embeddings } from '@langchain/core/embeddings';
import type { StoreConfig, StoreIndexConfig } from '../config/app-config.schemas.js';
import { resolveEnvRef } from '../config/load-config.js';
import { ConfigError } from '../errors.js';
import type { StoreSettings } from './store-items.js';

export async function createStoreEmbeddings(index: StoreIndexConfig, env: NodeJS.ProcessEnv = process.env): Promise<Embeddings> {
  const colon = index.embed.indexOf(':');
  const provider = index.embed.slice(0, colon);
  const model = index.embed.slice(colon + 1);
  if (provider === 'ollama') {
    const { OllamaEmbeddings } = await import('@langchain/ollama');
    return new OllamaEmbeddings({ model, ...(index.base_url ? { baseUrl: index.base_url } : {}) });
  }
  const { value: apiKey, missing } = resolveEnvRef(index.api_key ?? '$OPENAI_API_KEY', env);
  // A local OpenAI-compatible server may need no key; a hosted one always does.
  if (missing && (index.api_key !== undefined || !index.base_url)) {
    throw new ConfigError(`store.index: ${missing} is not set, and the embedding model ${index.embed} needs an API key.`);
  }
  const { OpenAIEmbeddings } = await import('@langchain/openai');
  return new OpenAIEmbeddings({
    model,
    apiKey: apiKey ?? 'not-needed',
    maxRetries: 2,
    ...(index.base_url ? { configuration: { baseURL: index.base_url } } : {}),
  });
}

/** config.yaml's `store` as the item store takes it, with its embedding client built. */
export async function storeSettingsFor(store: StoreConfig, env: NodeJS.ProcessEnv = process.env): Promise<StoreSettings> {
  const { index, ttl } = store;
  return {
    defaultTtlMinutes: ttl.default_ttl,
    refreshOnRead: ttl.refresh_on_read,
    index: index
      ? { embeddings: await createStoreEmbeddings(index, env), dims: index.dims, fields: [...index.fields], cacheBytes: index.cache_mb * 1024 * 1024 }
      : null,
  };
}
