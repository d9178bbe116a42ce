// Child-process entry of the anchor: the official LangGraph JS Agent Server (in-memory runtime,
// as `langgraphjs dev` starts it, minus the file watcher and the browser). Run in its own process
// so its CPU and RSS are measured apart from the bench's clients.
import { startServer } from '@langchain/langgraph-api/server';

interface AnchorArgs {
  port: number;
  nWorkers: number;
  cwd: string;
  graphs: Record<string, string>;
}

const args = JSON.parse(process.argv.at(-1) ?? '{}') as AnchorArgs;
const { host, cleanup } = await startServer({ ...args, host: '127.0.0.1' });
process.send?.({ ready: host });
process.on('SIGTERM', () => {
  void cleanup().finally(() => process.exit(0));
});
