// What a chat channel's test asks the API process of a cluster: the channel's status, the
// threads a chat made (by their metadata) and their runs. Straight to the API process: nginx's
// rate limit is not for a test's polling.
import type { Cluster } from './cluster.js';
import { waitFor } from './wait-for.js';

/** An answer long enough to stream in several edits (with the scripted model's delay between its words). */
export const longAnswer = Array.from({ length: 24 }, (_, i) => `word${i}`).join(' ');

export interface ChannelStatus {
  name: string;
  enabled: boolean;
  connected: boolean;
  holder: string | null;
  last_error: string | null;
}

export interface ListedRun {
  run_id: string;
  status: string;
  metadata: Record<string, unknown>;
  multitask_strategy: string;
  kwargs: { config: { recursion_limit?: number } };
}

export interface ChatThread {
  thread_id: string;
  created_at: string;
  metadata: Record<string, unknown>;
}

export function channelApi(cluster: () => Cluster, channel: string) {
  // Requests take turns over the API replicas, so that what a test reads or posts through one was
  // written through another (the state is in Redis, not in a process).
  let turn = 0;
  const api = (p: string) => {
    const { apis } = cluster();
    return `http://127.0.0.1:${apis[turn++ % apis.length]?.port}/api${p}`;
  };
  async function call<T>(p: string, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<T> {
    const res = await fetch(api(p), { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }
  const status = async () => (await call<{ channels: ChannelStatus[] }>('/channels')).channels.find((c) => c.name === channel);
  return {
    api,
    call,
    status,
    /** The channel's status once it is connected (and `also` holds of it). */
    connected: (also: (s: ChannelStatus) => boolean = () => true): Promise<ChannelStatus> =>
      waitFor(async () => {
        const s = await status();
        return s?.connected && also(s) && s;
      }, `${channel} to be connected`, 60_000),
    /** The threads a chat made, oldest first as the search answers them. */
    threadsOf: (chatId: string | number) => call<ChatThread[]>('/langgraph/threads/search', { metadata: { channel, chat_id: String(chatId) }, limit: 100 }),
    async runsOf(threadId: string): Promise<ListedRun[]> {
      const listed = await call<ListedRun[] | { runs: ListedRun[] }>(`/langgraph/threads/${threadId}/runs?limit=100`);
      return Array.isArray(listed) ? listed : listed.runs;
    },
  };
}
