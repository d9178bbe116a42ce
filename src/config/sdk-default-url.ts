// Where `new Client()` from @langchain/langgraph-sdk goes when a graph (or a module the API loads)
// gives it no URL. LangGraph's server makes the SDK's default its own address: the SDK reads it
// from a process-wide symbol, so every copy of the SDK (the project's own too) sees it. Warren's
// workers are other processes, so they get a URL, not an in-process fetch: one every process of
// the deployment reaches (config.yaml's `api_url`, or WARREN_API_URL), else the local API's port.
/** The SDK's own key for its default URL (@langchain/langgraph-sdk, client/base). */
const SDK_URL_SYMBOL = Symbol.for('langgraph_api:url');

/** Where Warren serves the LangGraph API under a deployment's root. */
const LANGGRAPH_PREFIX = '/api/langgraph';

export interface SdkUrlSources {
  /** config.yaml's `api_url`. */
  configured?: string | undefined;
  /** WARREN_API_URL. */
  fromEnv?: string | undefined;
  /** The API's port and bind address (PORT, HOST). */
  port: number;
  host: string;
}

/** The URL the SDK's `Client` defaults to in this deployment: `<root>/api/langgraph`. */
export function sdkDefaultUrl(sources: SdkUrlSources): string {
  const root = sources.fromEnv ?? sources.configured;
  if (root !== undefined) {
    return `${root.replace(/\/+$/, '')}${LANGGRAPH_PREFIX}`;
  }
  // A wildcard bind is reached on loopback from the same host.
  const host = sources.host === '0.0.0.0' || sources.host === '::' ? '127.0.0.1' : sources.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${sources.port}${LANGGRAPH_PREFIX}`;
}

/**
 * The key a `new Client()` inside this deployment presents when Warren's API keys are on: the
 * first deployment-wide key (WARREN_API_KEYS, or a plain string in `auth.api_keys`); a key
 * bound to one user is that user's, never the deployment's. None: the API is open (or a JWT or
 * a custom module decides, and a graph brings its own credentials).
 */
export function deploymentApiKey(envKeys: readonly string[], configured: readonly (string | { key: string })[]): string | undefined {
  return envKeys[0] ?? configured.find((entry): entry is string => typeof entry === 'string');
}

/**
 * Points the SDK's default at `url` in this process, and sets LANGGRAPH_API_URL to it as the
 * LangGraph CLI does for its server (unless the deployment set one).
 */
export function pointSdkAt(url: string, env: NodeJS.ProcessEnv = process.env, apiKey?: string): void {
  (globalThis as Record<symbol, unknown>)[SDK_URL_SYMBOL] = url;
  env.LANGGRAPH_API_URL ??= url;
  // The SDK reads LANGGRAPH_API_KEY when a Client is given no key; a deployment's own setting wins.
  if (apiKey !== undefined) env.LANGGRAPH_API_KEY ??= apiKey;
}
