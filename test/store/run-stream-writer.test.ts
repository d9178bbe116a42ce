// A run's stream writer while Redis is away (#33): the events after the batch in flight wait in
// the writer, up to its bound only while the connection is down; a run given up drops them. And
// before a checkpoint (#34), what waits is sent at once while the connection is up.
import { describe, expect, it } from 'vitest';
import { batchedWriter } from '../../src/store/run-stream.js';
import { isFenceRefusal } from '../../src/store/script-errors.js';
import { StreamBufferFullError } from '../../src/store/store.errors.js';

/** A send that holds every batch until `release` (Redis away), then answers ids. */
function heldSend() {
  const sent: string[][] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const send = async (pairs: string[]) => {
    sent.push(pairs);
    await gate;
    return pairs.filter((_, i) => i % 2 === 0).map((_, i) => `${sent.length}-${i}`);
  };
  return { sent, send, release: () => release() };
}

const outcome = (p: Promise<string>) =>
  p.then(
    () => 'stored',
    (err: unknown) => err,
  );

describe('the stream writer through an outage (#33)', () => {
  it('refuses events past its bound while the connection is down, not while it is up', async () => {
    const { send, release } = heldSend();
    let up = false;
    const writer = batchedWriter(send, () => up, 10);
    const first = outcome(writer.append('messages', '"in flight"'));
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = outcome(writer.append('messages', '"12345678"'));
    expect(await outcome(writer.append('messages', '"12345678"'))).toBeInstanceOf(StreamBufferFullError);
    up = true;
    const backlog = outcome(writer.append('messages', '"12345678"'));
    release();
    expect([await first, await waiting, await backlog]).toEqual(['stored', 'stored', 'stored']);
  });

  it('drops what waits when the run is given up, and refuses what comes after', async () => {
    const { send, sent, release } = heldSend();
    const writer = batchedWriter(send, () => false);
    const first = outcome(writer.append('messages', '"in flight"'));
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = outcome(writer.append('messages', '"held back"'));
    writer.discard('given up');
    const later = outcome(writer.append('messages', '"later"'));
    release();
    expect(await first).toBe('stored');
    expect(isFenceRefusal(await waiting)).toBe(true);
    expect(isFenceRefusal(await later)).toBe(true);
    expect(sent.flat(), 'only the batch in flight was sent').toEqual(['messages', '"in flight"']);
  });

  it('sends what waits at once when a checkpoint is to follow, beside the batch in flight, but not while the connection is down', async () => {
    const { send, sent, release } = heldSend();
    let up = true;
    const writer = batchedWriter(send, () => up);
    const first = outcome(writer.append('messages', '"in flight"'));
    await new Promise((resolve) => setImmediate(resolve));
    const second = outcome(writer.append('values', '"before the checkpoint"'));
    up = false;
    expect(writer.sendQueued(), 'the connection is down: the caller waits for the replies').toBe(false);
    expect(sent).toHaveLength(1);
    up = true;
    expect(writer.sendQueued()).toBe(true);
    expect(sent, 'sent at once, in order, without waiting for the first reply').toEqual([['messages', '"in flight"'], ['values', '"before the checkpoint"']]);
    expect(writer.sendQueued(), 'nothing left to send').toBe(true);
    release();
    expect([await first, await second]).toEqual(['stored', 'stored']);
  });
});

