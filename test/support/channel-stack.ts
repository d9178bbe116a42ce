// What a chat channel's test runs against: the scripted model, the platform's local fake, and a
// cluster (API processes and workers on one Redis) whose config has the model and the channel.
// Whatever started is stopped again if a later step fails, and by `stop()`.
import type { AgentScript } from './agent-script.js';
import { buildDist, startCluster, type Cluster, type ClusterOptions } from './cluster.js';
import { startScriptedOpenAI, type ScriptedOpenAI } from './scripted-openai.js';

export interface ChannelStack<P> {
  llm: ScriptedOpenAI;
  platform: P;
  cluster: Cluster;
  stop(): Promise<void>;
}

export interface ChannelStackOptions extends Omit<ClusterOptions, 'config'> {
  /** Config beyond the scripted model (`channels`, `runtime`, `uploads`). */
  config: Record<string, unknown>;
}

export async function startChannelStack<P extends { close(): Promise<void> }>(
  script: AgentScript,
  startPlatform: () => Promise<P>,
  options: (platform: P) => ChannelStackOptions,
): Promise<ChannelStack<P>> {
  buildDist();
  const llm = await startScriptedOpenAI((request) => script.route(request));
  let platform: P | undefined;
  try {
    platform = await startPlatform();
    const { config, ...rest } = options(platform);
    const cluster = await startCluster({
      workerConcurrency: 4,
      ...rest,
      config: { models: [{ name: 'scripted', use: 'openai', model: 'scripted-1', base_url: llm.url, api_key: 'test-key' }], ...config },
    });
    const started = platform;
    return {
      llm,
      platform: started,
      cluster,
      async stop() {
        await cluster.stop();
        await started.close();
        await llm.close();
      },
    };
  } catch (err) {
    await platform?.close();
    await llm.close();
    throw err;
  }
}

/** The channel UI tests' callers: an admin who saves credentials, and two users who connect their own chats. */
export const CHANNEL_UI_KEYS = { admin: 'admin-key-0123456789abcdef', alice: 'alice-key-0123456789abcdef', bob: 'bob-key-0123456789abcdef0' } as const;
/** config.yaml's `auth` for CHANNEL_UI_KEYS. */
export const CHANNEL_UI_AUTH = {
  api_keys: [
    { key: CHANNEL_UI_KEYS.admin, user: 'root', role: 'admin' },
    { key: CHANNEL_UI_KEYS.alice, user: 'alice' },
    { key: CHANNEL_UI_KEYS.bob, user: 'bob' },
  ],
};
