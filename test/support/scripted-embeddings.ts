// A local server that speaks OpenAI's embeddings protocol (`POST /v1/embeddings`, float or
// base64 answers, as the official client asks), standing in for a hosted embedding model that
// cannot be reached from here. Its vectors are word counts hashed into `dims` buckets, so texts
// that share words are close, and a test can predict the ranking.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedEmbeddings {
  /** Base URL for `store.index.base_url` (ends with /v1). */
  readonly url: string;
  /** Every text embedded so far, in order. */
  readonly texts: string[];
  close(): Promise<void>;
}

/** Bucket of a word: FNV-1a, so the same word always lands in the same place. */
function bucket(word: string, dims: number): number {
  let hash = 0x811c9dc5;
  for (const ch of word) hash = Math.imul(hash ^ (ch.codePointAt(0) as number), 0x01000193) >>> 0;
  return hash % dims;
}

export function embedText(text: string, dims: number): number[] {
  const vector = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const at = bucket(word, dims);
    vector[at] = (vector[at] ?? 0) + 1;
  }
  return vector;
}

export async function startScriptedEmbeddings(dims: number): Promise<ScriptedEmbeddings> {
  const texts: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/embeddings')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: string | string[]; model: string; encoding_format?: string };
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      texts.push(...inputs);
      const data = inputs.map((input, index) => {
        const vector = embedText(input, dims);
        const embedding = body.encoding_format === 'base64' ? Buffer.from(Float32Array.from(vector).buffer).toString('base64') : vector;
        return { object: 'embedding', index, embedding };
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: inputs.length, total_tokens: inputs.length } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    texts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
