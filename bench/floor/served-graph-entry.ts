// Child-process entry of the served floor: the bench graph behind a bare node:http server, in
// one process, keeping nothing anywhere but memory. No framework, no validation, no queue, no
// persistence, no second process. What any HTTP server hosting this graph must at least spend
// per run, where the bare graph (bare-graph-entry.ts) is what any server at all must spend; the
// difference is the price of HTTP and SSE alone.
import { MemorySaver } from '@langchain/langgraph';
import { chatGraph } from '../graph/chat-graph.ts';
import { serveBenchCalls, sseEvent, wireJson } from './served-http.ts';

const { port } = JSON.parse(process.argv.at(-1) ?? '{}') as { port: number };
chatGraph.checkpointer = new MemorySaver();

serveBenchCalls(port, async (threadId, _runId, { input }, res) => {
  const config = { configurable: { thread_id: threadId }, streamMode: ['values', 'messages'] as ('values' | 'messages')[], durability: 'sync' as const };
  for await (const [mode, chunk] of await chatGraph.stream(input as Parameters<typeof chatGraph.stream>[0], config)) {
    res.write(sseEvent(mode, wireJson(chunk)));
  }
  res.end();
});
