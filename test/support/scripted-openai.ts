// A local HTTP server that speaks the OpenAI chat-completions protocol (streaming and not,
// with tool calls) and replays scripted answers. The one stand-in we allow: a hosted LLM
// cannot be reached from here. Production code talks to it through the real provider client.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolCall {
  name: string;
  args: Record<string, unknown>;
  id?: string;
}

export interface ScriptedReply {
  content?: string;
  tool_calls?: ScriptedToolCall[];
  /** Delay before each streamed piece. */
  delayMs?: number;
  /** Answer with this HTTP status and an OpenAI-style error instead. */
  status?: number;
  /** Answer only once this settles: the test holds the caller in its model call until then. */
  hold?: Promise<unknown>;
}

export interface ChatRequest {
  model: string;
  messages: { role: string; content: unknown; tool_calls?: unknown; tool_call_id?: string }[];
  stream?: boolean;
  tools?: { function: { name: string } }[];
}

export type Script = ScriptedReply[] | ((request: ChatRequest, index: number) => ScriptedReply);

export interface ScriptedOpenAI {
  /** Base URL for `base_url` in config.yaml (ends with /v1). */
  readonly url: string;
  readonly requests: ChatRequest[];
  /** Queues more replies (when the script is a list). */
  push(...replies: ScriptedReply[]): void;
  close(): Promise<void>;
}

/** Splits text into word-ish tokens that re-join to the original. */
export function tokenize(text: string): string[] {
  return text.match(/\s*\S+|\s+/g) ?? [];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startScriptedOpenAI(script: Script = [], options: { defaultDelayMs?: number } = {}): Promise<ScriptedOpenAI> {
  const queue: ScriptedReply[] = Array.isArray(script) ? [...script] : [];
  const requests: ChatRequest[] = [];
  let served = 0;

  const nextReply = (request: ChatRequest): ScriptedReply => {
    const index = served++;
    if (typeof script === 'function') return script(request, index);
    return queue.shift() ?? { content: 'OK' };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
    requests.push(request);
    const reply = nextReply(request);
    if (reply.hold) await reply.hold;
    const delay = reply.delayMs ?? options.defaultDelayMs ?? 0;
    if (reply.status) {
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: reply.content ?? 'scripted failure', type: 'server_error' } }));
      return;
    }
    const id = `chatcmpl-${served}`;
    const created = Math.floor(Date.now() / 1000);
    const toolCalls = (reply.tool_calls ?? []).map((call, i) => ({
      id: call.id ?? `call_${served}_${i}`,
      type: 'function' as const,
      function: { name: call.name, arguments: JSON.stringify(call.args) },
    }));
    const finish = toolCalls.length > 0 ? 'tool_calls' : 'stop';
    const content = reply.content ?? '';
    const usage = { prompt_tokens: 10, completion_tokens: tokenize(content).length, total_tokens: 10 + tokenize(content).length };

    if (!request.stream) {
      // A whole answer takes as long as its tokens would have taken to stream.
      if (delay) await sleep(delay * Math.max(1, tokenize(content).length));
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model: request.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
              finish_reason: finish,
            },
          ],
          usage,
        }),
      );
      return;
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (delta: Record<string, unknown>, finishReason: string | null = null) =>
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: request.model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`,
      );
    send({ role: 'assistant', content: '' });
    for (const token of tokenize(content)) {
      if (delay) await sleep(delay);
      if (res.destroyed) return;
      send({ content: token });
    }
    toolCalls.forEach((call, index) => {
      send({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] });
      send({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] });
    });
    send({}, finish);
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: request.model, choices: [], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(err) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    push: (...replies) => queue.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
