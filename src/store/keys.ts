// The one place that names Redis keys and channels. No other file holds a key literal.
//
// Redis Cluster (REDIS_URL=redis+cluster://…): every multi-key command, script, MULTI and
// pipeline names keys of one hash slot only. The rules that keep it so:
//
// - Everything that belongs to one thread carries the hash tag `{thread_id}`, so a thread's
//   multi-key scripts stay on one slot. Likewise `{assistant_id}`, `{cron_id}`, `{store}`,
//   `{memory:<user>}`, `{<channel>}`: one tag per thing a script changes at once.
// - Global indexes (threads by update time, run → thread, checkpointed threads, crons,
//   assistants) are single untagged keys, each on whatever slot its name hashes to. They are
//   only ever touched by single-key commands, never inside a script, MULTI or pipeline with
//   another key: the record is written first and indexed after, and on delete unindexed after
//   it is gone, so a reader that finds an index entry without a record skips it. Cost: each
//   index is one key on one node (all its writes go there; its size is bounded by that node's
//   memory), and a write is one more round trip, not atomic with the record. Per-owner indexes
//   follow the same rule (a single key each, its own commands).
// - Readers that fetch many records of different threads (thread search, runs everywhere)
//   send one command per record, all at once (auto-pipelined on a single Redis).
// - BullMQ: on a Cluster each queue's prefix carries the queue as tag (`bullPrefix`), so each
//   queue is one slot and different queues spread over the nodes.
//
// On a single Redis all names are unchanged from before Cluster support.

export const KEY_PREFIX = 'warren';

/** The kinds of record that have a per-owner index. */
export type OwnedKind = 'threads' | 'assistants' | 'crons' | 'agents';

const tag = (threadId: string): string => `${KEY_PREFIX}:{${threadId}}`;

export const keys = {
  // ── rate limits ─────────────────────────────────────────────────────────────────────────
  /** Prefix of @fastify/rate-limit's counters (String, with a TTL of the window): `<prefix><user or ip>`. */
  rateLimitPrefix: () => `${KEY_PREFIX}:rate-limit:`,

  // ── threads ─────────────────────────────────────────────────────────────────────────────
  /** Hash: the thread record. */
  thread: (threadId: string) => `${tag(threadId)}:thread`,
  /** Sorted set of every thread id, scored by `updated_at` in ms. */
  threadIndex: () => `${KEY_PREFIX}:threads:by-updated`,
  /**
   * String: the user who owns the thread. Apart from the record, so that a thread that does not
   * exist yet can be claimed by its first upload, and read alone on every request that names it.
   */
  threadOwner: (threadId: string) => `${tag(threadId)}:owner`,

  // ── runs ────────────────────────────────────────────────────────────────────────────────
  /** Hash: one run record. */
  run: (threadId: string, runId: string) => `${tag(threadId)}:run:${runId}`,
  /** Sorted set of the thread's run ids, scored by `created_at` in ms. */
  threadRuns: (threadId: string) => `${tag(threadId)}:runs`,
  /** String: the id of the run that holds the thread (pending-and-dispatched or running). */
  activeRun: (threadId: string) => `${tag(threadId)}:active-run`,
  /** List: run ids waiting for the active run to finish (multitask `enqueue`). */
  runQueue: (threadId: string) => `${tag(threadId)}:run-queue`,
  /** Stream: the run's events, `{event, data}` entries. Its entry ids are the SSE ids. */
  runStream: (threadId: string, runId: string) => `${tag(threadId)}:run:${runId}:stream`,
  /**
   * Sharded pub/sub channel (a Redis Cluster only): the run's writer publishes each new entry's
   * id on it in the same script as the XADD, so a stream hub hears of entries over one
   * subscriber connection per node (an XREAD cannot span slots). In the thread's slot, as a
   * script's channel must be. One Redis has no such channel: the hub blocks on the streams.
   */
  runStreamChannel: (threadId: string, runId: string) => `${tag(threadId)}:run:${runId}:appended`,
  /**
   * Stream of one entry at most: an API process's stream hub adds to it to end its blocking
   * XREAD early (when a new run's stream must join it). Expires unless in use.
   */
  streamHubWake: (hubId: string) => `${KEY_PREFIX}:stream-hub:${hubId}:wake`,
  /** Hash: run id → thread id, so a run can be found from its id alone (global index: single-key commands only). */
  runThreads: () => `${KEY_PREFIX}:run-threads`,

  // ── DeerFlow's per-thread notes (store/feedback.ts, store/goals.ts) ───────────────────
  // Under the thread's tag, beside its record: deleted with the thread (threads.service).
  /** Hash: feedback id → one user's feedback on one run (JSON). */
  threadFeedback: (threadId: string) => `${tag(threadId)}:feedback`,
  /** Hash: JSON `[run_id, user]` → the id of that user's feedback on that run, so a PUT updates it in place. */
  threadFeedbackByUser: (threadId: string) => `${tag(threadId)}:feedback-by-user`,
  /** String: the thread's goal (JSON), set by its owner. */
  threadGoal: (threadId: string) => `${tag(threadId)}:goal`,

  // ── assistants ──────────────────────────────────────────────────────────────────────────
  // User-created assistants (a configured graph's system assistant is never stored). The tag
  // keeps an assistant's record and versions on one slot; `assistant:` keeps them clear of a
  // thread's keys, whose pattern deletes everything under `{thread_id}`.
  /** Hash: `record` (the assistant as JSON, its latest version) and `max_version`. */
  assistant: (assistantId: string) => `${KEY_PREFIX}:assistant:{${assistantId}}`,
  /** Hash: version number → that version of the assistant (JSON). */
  assistantVersions: (assistantId: string) => `${KEY_PREFIX}:assistant:{${assistantId}}:versions`,
  /** Sorted set of every user-created assistant id, scored by `created_at` in ms. */
  assistantIndex: () => `${KEY_PREFIX}:assistants:by-created`,

  // ── crons ───────────────────────────────────────────────────────────────────────────────
  // A cron's record is one key under its own tag; the indexes are global and each is touched
  // by single-key commands only, record first on create and last on delete, so a reader that
  // finds an index entry without a record skips it.
  /** Hash: `record` (the cron as JSON, without its computed `next_run_date`) and `last_tick` (ms). */
  cron: (cronId: string) => `${KEY_PREFIX}:cron:{${cronId}}`,
  /** Sorted set of every cron id, scored by `created_at` in ms. */
  /** Sorted set of the runs a cron started (JSON `{thread_id, run_id}`), scored by the tick (or manual trigger) time in ms; beside its record, under its tag. */
  cronRuns: (cronId: string) => `${KEY_PREFIX}:cron:{${cronId}}:runs`,
  cronIndex: () => `${KEY_PREFIX}:crons:by-created`,
  /** Sorted set of the crons of one assistant, scored by `created_at` in ms. */
  assistantCrons: (assistantId: string) => `${KEY_PREFIX}:crons:by-assistant:${assistantId}`,
  /** Sorted set of the crons of one thread, scored by `created_at` in ms (kept clear of the thread's tag, which its deletion wipes). */
  threadCrons: (threadId: string) => `${KEY_PREFIX}:crons:by-thread:${threadId}`,

  // ── checkpoints ─────────────────────────────────────────────────────────────────────────
  /** Set of checkpoint namespaces used by the thread (`""` is the root graph). */
  checkpointNamespaces: (threadId: string) => `${tag(threadId)}:cp-ns`,
  /** Sorted set (all scores 0, ordered by member) of checkpoint ids in one namespace. */
  checkpointIds: (threadId: string, ns: string) => `${tag(threadId)}:cp-ids:${ns}`,
  /** Hash: one checkpoint, its metadata and its parent id. */
  checkpoint: (threadId: string, ns: string, checkpointId: string) =>
    `${tag(threadId)}:cp:${ns}:${checkpointId}`,
  /** Hash: the pending writes of one checkpoint, field `<task_id>:<idx>`. */
  checkpointWrites: (threadId: string, ns: string, checkpointId: string) =>
    `${tag(threadId)}:cp-writes:${ns}:${checkpointId}`,
  /**
   * Hash: the channel values of one namespace, field JSON `[channel, version]`. A checkpoint
   * stores only the channels it changed; the rest are found here by the versions it lists.
   */
  checkpointBlobs: (threadId: string, ns: string) => `${tag(threadId)}:cp-blobs:${ns}`,
  /** Set of every thread id that has checkpoints, for listing without a thread. */
  checkpointThreads: () => `${KEY_PREFIX}:cp-threads`,

  // ── long-term store (LangGraph's BaseStore and /store/items) ──────────────────────────
  // Every store key carries the one tag `{store}`: an item and the prefix indexes it joins are
  // written by one script, so they share a slot (a Redis Cluster keeps the store on one shard).
  // `item` is `JSON.stringify([...namespace, key])`, which no two (namespace, key) pairs share.
  /** Hash: one item (`namespace`, `key`, `value` as JSON, times, TTL, vector revision). */
  storeItem: (item: string) => `${KEY_PREFIX}:{store}:item:${item}`,
  /** Sorted set of the items under one namespace prefix (`[]` is all of them), scored by `updated_at` in ms. */
  storePrefixIndex: (prefix: readonly string[]) => `${KEY_PREFIX}:{store}:prefix:${JSON.stringify(prefix)}`,
  /** Hash: namespace (JSON) → how many items it holds; a namespace leaves when it holds none. */
  storeNamespaces: () => `${KEY_PREFIX}:{store}:namespaces`,
  /** Sorted set of the items that expire, scored by when, for the sweep. */
  storeExpiries: () => `${KEY_PREFIX}:{store}:expiries`,
  /** Hash: item → its embeddings (float32, unit length, one per indexed text, end to end). */
  storeVectors: () => `${KEY_PREFIX}:{store}:vectors`,
  /** Hash: item → the revision of its embeddings, which changes with every write. */
  storeVectorRevs: () => `${KEY_PREFIX}:{store}:vector-revs`,
  /** String: a counter every item write and delete raises, so rankers know when nothing changed. */
  storeVectorGeneration: () => `${KEY_PREFIX}:{store}:generation`,
  /** String: held by the process sweeping expired items, so one sweeps per interval. */
  storeSweepLease: () => `${KEY_PREFIX}:{store}:sweep-lease`,

  // ── custom agents ───────────────────────────────────────────────────────────────────────
  /** Hash: agent name → the agent's JSON record (gateway/agents). One key, so one slot. */
  customAgents: () => `${KEY_PREFIX}:custom-agents`,

  // ── memory (the document itself is a store item: store/memory-store.ts) ────────────────
  // A user's keys share the tag `{memory:<user>}`, so one MULTI touches them on one slot.
  /** List: finished turns (JSON) waiting for the user's next memory update, oldest first. */
  memoryTurns: (userId: string) => `${KEY_PREFIX}:{memory:${userId}}:turns`,
  /** String: the token of the memory update that is due or running for the user; none, none is. */
  memoryUpdateDue: (userId: string) => `${KEY_PREFIX}:{memory:${userId}}:update-due`,

  // ── locks on shared files (store/file-locks.ts) ─────────────────────────────────────────
  /** String: the last fencing token handed out (INCR), so no two lock holders share one. */
  lockFence: () => `${KEY_PREFIX}:locks:fence`,
  /** String: the token of whoever is changing extensions_config.json; expires with the lease. */
  extensionsConfigLock: () => `${KEY_PREFIX}:locks:extensions-config`,
  /** String: the token of whoever is changing the thread's uploads and their index; expires with the lease. */
  uploadsLock: (threadId: string) => `${tag(threadId)}:uploads-lock`,

  /** String: the token of whoever is changing a custom skill's SKILL.md (edit, rollback, delete); expires with the lease. */
  customSkillsLock: () => `${KEY_PREFIX}:locks:custom-skills`,

  // ── custom skills' history (skills/skill-history-store.ts) ─────────────────────────────
  /** List: the skill's revisions (JSON: action, prev_content, new_content, ts), oldest first; kept after a delete, as DeerFlow keeps its .jsonl. */
  customSkillHistory: (name: string) => `${KEY_PREFIX}:skill:{${name}}:history`,

  // ── chat channels (store/channels.ts) ──────────────────────────────────────────────────
  // Each platform's keys carry its name as tag, so its scripts stay on one slot.
  /** String: the fencing token of the process holding the platform's connection; expires with the lease. */
  channelLease: (channel: string) => `${KEY_PREFIX}:channel:{${channel}}:lease`,
  /** String: the last fencing token handed out for the platform (INCR). */
  channelFence: (channel: string) => `${KEY_PREFIX}:channel:{${channel}}:fence`,
  /** Hash: the platform's status (`connected`, `holder`, `last_error`, `updated_at`) and its `offset` (Telegram's next update id). */
  channelState: (channel: string) => `${KEY_PREFIX}:channel:{${channel}}:state`,
  /** Hash: conversation (a chat, or a chat's thread) → Warren thread id. */
  channelConversations: (channel: string) => `${KEY_PREFIX}:channel:{${channel}}:conversations`,
  /** Hash: run id → where its answer goes (JSON), until the answer is sent; a new holder sends what a dead one owed. */
  channelReplies: (channel: string) => `${KEY_PREFIX}:channel:{${channel}}:replies`,
  /** Hash: run id → the platform's id of the message that shows its answer, until the answer is sent: a new holder edits it rather than sending another. */
  channelAnswerMessages: (channel: string) => `${KEY_PREFIX}:channel:{${channel}}:answer-messages`,
  /**
   * Stream: the platform's events not yet handled (Slack's `event_callback` bodies, Feishu's message events; field `body`),
   * written by whoever received them (an API replica, the Socket Mode holder) and deleted by the
   * lease holder once handled: what is in it is owed handling, whoever holds the lease next.
   */
  channelInbox: (channel: string) => `${KEY_PREFIX}:channel:{${channel}}:inbox`,
  /** String: an event id already recorded (Slack and Feishu redeliver); expires after a day. */
  channelEventSeen: (channel: string, eventId: string) => `${KEY_PREFIX}:channel:{${channel}}:seen:${eventId}`,

  // ── chat channels connected from the UI (channels/channel-connections-store.ts) ─────────
  /**
   * String (JSON): the platform's credentials saved from the UI (POST /api/channels/{provider}/runtime-config),
   * secrets sealed with WARREN_CHANNEL_SECRETS_KEY, plus `version` and `updated_at`; over config.yaml's.
   */
  channelRuntimeConfig: (channel: string) => `${KEY_PREFIX}:channel:{${channel}}:runtime-config`,
  /** String (JSON `{owner, created_at}`): a one-time code that binds a chat account to its owner; expires after 10 minutes. */
  channelConnectCode: (channel: string, code: string) => `${KEY_PREFIX}:channel:{${channel}}:connect-code:${code}`,
  /** Sorted set: one owner's pending codes for the platform, by expiry (ms), to cap how many are open at once. */
  channelConnectCodes: (channel: string, owner: string) => `${KEY_PREFIX}:channel:{${channel}}:connect-codes:${owner}`,
  /** Hash: connection id → the binding of a chat account to a Warren user (JSON). */
  channelConnections: (channel: string) => `${KEY_PREFIX}:channel:{${channel}}:connections`,
  /** Hash: the platform's user id → the id of the connection binding it (one owner at a time). */
  channelIdentities: (channel: string) => `${KEY_PREFIX}:channel:{${channel}}:identities`,
  /** String: which set-up flow of the Lark integration is current for a user (a newer start supersedes an older one). */
  larkFlowGeneration: (user: string) => `${KEY_PREFIX}:lark:{${user}}:flow-generation`,

  // ── owners (store/owners.ts) ────────────────────────────────────────────────────────────
  // One index per user and kind of record, so that a user's search reads only their own ids.
  // Each is touched by single-key commands only, after the record's own write, like the global
  // indexes; the tag keeps one user's indexes on one slot.
  /** Sorted set of the user's records of one kind (`threads` by `updated_at`, the others by `created_at`), in ms. */
  ownerIndex: (owner: string, kind: OwnedKind) => `${KEY_PREFIX}:{owner:${owner}}:${kind}`,

  // ── people's accounts (store/accounts.ts) ──────────────────────────────────────────────
  // One tag for all of them: creating an account claims its email (and the first admin) in one
  // script, and a request's session check reads the account and its sessions in one round trip.
  // Sign-ins are rare next to runs, so one slot holds them.
  /** Hash: one account (`id`, `email`, `password_hash`, `role`, `created_at`, `oauth_provider`, `oauth_subject`). */
  account: (accountId: string) => `${KEY_PREFIX}:{accounts}:account:${accountId}`,
  /** String: the id of the account that holds this email (lowercased). */
  accountEmail: (email: string) => `${KEY_PREFIX}:{accounts}:email:${email}`,
  /** String: the id of the account an OIDC provider's subject signs in as. */
  accountOAuth: (provider: string, subject: string) => `${KEY_PREFIX}:{accounts}:oauth:${provider}:${subject}`,
  /** String: the first admin's id, set once by `initialize`; while absent the deployment needs set-up. */
  accountsAdmin: () => `${KEY_PREFIX}:{accounts}:first-admin`,
  /** Sorted set: the account's live session ids, scored by when each expires (ms). */
  accountSessions: (accountId: string) => `${KEY_PREFIX}:{accounts}:sessions:${accountId}`,
  /** String (a count, with the lockout as TTL): sign-in attempts since the last success, from one client address or for one account (count-login-attempt-n.lua). */
  loginFailures: (kind: 'address' | 'account', value: string) => `${KEY_PREFIX}:{accounts}:login-failures:${kind}:${value}`,
  /** String (JSON, short TTL): an OIDC sign-in under way, by its `state`: provider, PKCE verifier, nonce, where to go. */
  oidcSignIn: (state: string) => `${KEY_PREFIX}:{accounts}:oidc-state:${state}`,

  // ── pub/sub ─────────────────────────────────────────────────────────────────────────────
  /** Channel: cancel requests, `{run_id, thread_id, action}`; every worker listens. */
  cancelChannel: () => `${KEY_PREFIX}:control:cancel`,
  /** Channel: stop a sub-agent task, `{task_job_id}`; every task worker listens. */
  taskCancelChannel: () => `${KEY_PREFIX}:control:cancel-task`,
  /** Channel: configuration changed (`config.yaml` or `extensions_config.json`). */
  configChangedChannel: () => `${KEY_PREFIX}:control:config-changed`,
  /** Channel: restart a chat platform's connection, `{channel}`; its holder drops and re-acquires it. */
  channelRestartChannel: () => `${KEY_PREFIX}:control:channel-restart`,
  /** Channel: a platform's UI-saved credentials changed, `{channel}`; every worker rebuilds that platform's connection. */
  channelConfigChannel: () => `${KEY_PREFIX}:control:channel-config`,

  // ── metrics ─────────────────────────────────────────────────────────────────────────────
  /** Hash: final run status → count, across all workers. */
  runsByStatus: () => `${KEY_PREFIX}:metrics:runs-by-status`,

  // ── BullMQ ──────────────────────────────────────────────────────────────────────────────
  /**
   * BullMQ's own key prefix; it appends `:<queue>:<suffix>` itself. BullMQ's scripts touch many
   * keys of a queue at once, so on a Cluster the prefix carries the queue as hash tag
   * (`warren:bull:{runs}:runs:wait`): one queue, one slot; several queues, several slots.
   */
  bullPrefix: (queueName: string, cluster: boolean) => (cluster ? `${KEY_PREFIX}:bull:{${queueName}}` : `${KEY_PREFIX}:bull`),
  /**
   * The keys of BullMQ's that re-locking a job touches (store/job-locks.ts), from the queue's
   * qualified name (BullMQ's `job.queueQualifiedName`: `<bullPrefix>:<queue>`): the job's lock
   * (string), the queue's active list and its stalled set. BullMQ's own layout (6.x).
   */
  bullJobLock: (queueQualifiedName: string, jobId: string) => `${queueQualifiedName}:${jobId}:lock`,
  bullActive: (queueQualifiedName: string) => `${queueQualifiedName}:active`,
  bullStalled: (queueQualifiedName: string) => `${queueQualifiedName}:stalled`,
  /** BullMQ's mark that a stalled check ran lately (it runs once per interval per queue). */
  bullStalledCheck: (queueQualifiedName: string) => `${queueQualifiedName}:stalled-check`,
} as const;

/** Every key of one thread matches this pattern (for deleting a thread with SCAN). */
export const threadKeyPattern = (threadId: string): string =>
  `${tag(threadId).replace(/[*?[\]\\]/g, (c) => `\\${c}`)}:*`;
