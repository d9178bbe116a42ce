// Reading a run's events the way a plain HTTP client would.
export interface SseEvent {
  event: string;
  data: unknown;
  id?: string;
}

/** Parses an SSE body into events (comments are skipped). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\n\n/)) {
    let event = 'message';
    const data: string[] = [];
    let id: string | undefined;
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
      else if (line.startsWith('id: ')) id = line.slice(4);
    }
    if (data.length > 0) events.push({ event, data: JSON.parse(data.join('\n')), ...(id ? { id } : {}) });
  }
  return events;
}

/** Collects an async iterable of SDK stream parts. */
export async function collect<T extends { event: string; data: unknown; id?: string }>(iterable: AsyncIterable<T>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const part of iterable) out.push({ event: part.event, data: part.data, ...(part.id ? { id: part.id } : {}) });
  return out;
}

export const names = (events: SseEvent[]) => events.map((e) => e.event);

export const userInput = (content: string) => ({ messages: [{ role: 'user', content }] });
