// The lease holder's side of a platform that pushes events (Slack, Feishu), around its inbox in
// Redis (src/channels/channel-store.ts): whoever received an event (the platform's socket, which this
// holder opens, or an API replica's HTTP route) recorded it there once per event id; the holder
// handles each entry in order until it is durably a run (or a reply) and only then removes it,
// fenced by its lease token, so an event that was received is never dropped, even when its
// holder dies mid-way, and a holder that lost the lease stops at once.
import type { Logger } from 'pino';
import type { ChannelName, ChannelStore, InboxEntry } from '../../src/channels/channels.js';
import { ChannelLeaseLostError } from './channels.errors.js';
import type { RunAnswers } from './run-answers.js';

/** How long one read of the inbox waits for an event. */
const INBOX_WAIT_MS = 2_000;

export interface InboxHolderDeps {
  store: Pick<ChannelStore, 'dropEvent' | 'owed' | 'report'>;
  /** Waits up to `blockMs` for inbox entries after `after` (a blocking read, on a connection of its own). */
  waitForInbox(after: string, blockMs: number): Promise<InboxEntry[]>;
  answers: Pick<RunAnswers, 'follow' | 'stopAll'>;
  log: Logger;
}

/** A platform's part, once its holder is ready (its bot identity known, say). */
export interface PushedEvents {
  /** Holds the platform's socket, which records the events it delivers, until `signal` aborts; null when events come over HTTP. */
  listen: ((signal: AbortSignal) => Promise<void>) | null;
  /** Handles one recorded event (its body, parsed) until it is done; throws to leave it in the inbox. */
  handle(body: unknown, signal: AbortSignal): Promise<void>;
}

/** Works through the inbox, what a previous holder left first, until `signal` aborts; `token` fences the removals. */
async function readInbox(channel: ChannelName, deps: InboxHolderDeps, events: PushedEvents, token: string, signal: AbortSignal): Promise<void> {
  let after = '0-0';
  while (!signal.aborted) {
    const entries = await deps.waitForInbox(after, INBOX_WAIT_MS).catch((err: unknown) => {
      if (signal.aborted) return [];
      throw err;
    });
    for (const entry of entries) {
      let body: unknown = undefined;
      try {
        body = JSON.parse(entry.body);
      } catch {
        deps.log.warn({ entry: entry.id }, `${channel}: an inbox entry is not JSON; passed over`);
      }
      if (body !== undefined) await events.handle(body, signal);
      if (!(await deps.store.dropEvent(channel, token, entry.id))) throw new ChannelLeaseLostError(`the lease was taken over; this worker stops reading ${channel} events`);
      after = entry.id;
    }
  }
}

/**
 * Holds a pushing platform's connection until `held` aborts: the answers still owed followed, the
 * platform's socket (if any) beside the inbox's reader. When either fails, both end, and the lease
 * holder opens them anew. `ready` readies the platform first (retrying as it needs).
 */
export async function holdInbox(channel: ChannelName, deps: InboxHolderDeps, token: string, held: AbortSignal, ready: (signal: AbortSignal) => Promise<PushedEvents>): Promise<void> {
  const { log, store } = deps;
  const ending = new AbortController();
  const signal = AbortSignal.any([held, ending.signal]);
  let listening: Promise<void> = Promise.resolve();
  try {
    const events = await ready(signal);
    for (const owed of await store.owed(channel)) deps.answers.follow(owed);
    if (events.listen) {
      listening = events.listen(signal).catch((err: unknown) => {
        // Not expected (it reconnects whatever fails): the connection is dropped and opened anew.
        log.error({ err }, `${channel}: the platform's connection stopped`);
        ending.abort(err);
      });
    } else {
      // Events come over HTTP to the API, which records them: nothing to connect to.
      await store.report(channel, { connected: true, last_error: null });
    }
    await readInbox(channel, deps, events, token, signal);
  } finally {
    ending.abort(new Error(`the ${channel} connection ended`));
    deps.answers.stopAll();
    await listening;
  }
}
