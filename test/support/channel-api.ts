// What a chat channel's test asks the API process of a cluster: the channel's status, the
// threads a chat made, a thread's runs. Straight to the API process: nginx's rate limit is not
// for a test's polling.
import type { Cluster } from './cluster.js';

export interface ChannelStatus { name: string; enabled: boolean; connected: boolean; holder: string | null; last_error: string | null }
export interface ListedRun { run_id: string; status: string; metadata: Record<string, unknown>; multitask_strategy: string; kwargs: { config: { recursion_limit?: number } } }

/** `cluster` is read at each call (tests start theirs in beforeAll). */
export function channelApi(cluster: () => Cluster, channel: string) {
  const api = (p: string) => `http://127.0.0.1:${cluster().apis[0]?.port}/api${p}`;
  async function call<T>(p: string, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<T> {
    const res = await fetch(api(p), { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }
  return {
    api,
    call,
    status: async () => (await call<{ channels: ChannelStatus[] }>('/channels')).channels.find((c) => c.name === channel),
    threadsOf: async (chatId: string | number) =>
      call<{ thread_id: string; created_at: string }[]>('/langgraph/threads/search', { metadata: { channel, chat_id: String(chatId) }, limit: 100 }),
    async runsOf(threadId: string): Promise<ListedRun[]> {
      const listed = await call<ListedRun[] | { runs: ListedRun[] }>(`/langgraph/threads/${threadId}/runs?limit=100`);
      return Array.isArray(listed) ? listed : listed.runs;
    },
  };
}
