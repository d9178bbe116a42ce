// DeerFlow's turn routes (issue #30) through HTTP on 2 API replicas and 2 workers, with the lead
// agent on the scripted model: run feedback and its stats (and the feeds' `feedback`), the thread
// goal, branches (from the second message, with the thread's files), regenerate and
// edit-and-rerun preparations (then the run the UI sends), and compaction of a long thread by a
// worker. Field names, types and statuses are DeerFlow's pydantic models' (f1f4af99b). Requests
// alternate replicas; bob is refused alice's thread.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_PROMPT } from '../../graphs/lead-agent/prompts.js';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { startScriptedOpenAI, type ChatRequest, type ScriptedOpenAI, type ScriptedReply } from '../support/scripted-openai.js';
import { expectDetail, replicaApi } from '../support/replica-api.js';

const KEYS = { alice: 'alice-key-0123456789abcdef', bob: 'bob-key-0123456789abcdef' } as const;
type Who = keyof typeof KEYS;

let llm: ScriptedOpenAI;
let cluster: Cluster;
let replicas: string[];
const { call, ok } = replicaApi(KEYS, () => replicas);
/** Replies the lead agent gets before the default one (tool calls, say). */
const queued: ScriptedReply[] = [];

const lastUserText = (request: ChatRequest): string => {
  const last = request.messages.findLast((m) => m.role === 'user');
  const content = last?.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((p) => (typeof p === 'object' && p !== null && 'text' in p ? String(p.text) : '')).join('') : '';
};

function reply(request: ChatRequest): ScriptedReply {
  const system = request.messages[0]?.content;
  if (typeof system === 'string' && system.startsWith(SUMMARY_PROMPT)) return { content: 'SUMMARY-OF-EARLIER-TURNS' };
  return queued.shift() ?? { content: `answer to: ${lastUserText(request)}` };
}


const newThread = async (): Promise<string> => (await ok('alice', 'POST', '/api/langgraph/threads', {})).thread_id;

/** One turn of the lead agent, waited for; extra run fields (checkpoint, metadata) as the UI sends them. */
async function turn(threadId: string, input: unknown, extra: Record<string, unknown> = {}): Promise<void> {
  await ok('alice', 'POST', `/api/langgraph/threads/${threadId}/runs/wait`, {
    assistant_id: 'lead_agent',
    input,
    config: { configurable: { model_name: 'scripted' } },
    ...extra,
  });
}
const ask = (threadId: string, text: string) => turn(threadId, { messages: [{ type: 'human', content: text }] });

interface Row {
  run_id: string;
  event_type: string;
  seq: number;
  content: { type: string; id: string; content: unknown; additional_kwargs?: Record<string, unknown> };
  feedback?: { feedback_id: string; rating: number; comment: string | null } | null;
}
const rowsOf = async (threadId: string): Promise<Row[]> => ok('alice', 'GET', `/api/threads/${threadId}/messages?limit=200`);
/** A row's text: its string content, or its text parts joined (a replayed question is sent as parts). */
const textOf = (row: Row): string => {
  const content = row.content.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((p: { type?: string; text?: string }) => (p.type === 'text' ? (p.text ?? '') : '')).join('') : '';
};
/** What the chat shows as turns: no tool results, no hidden messages, no answer that is only tool calls. */
const visible = (rows: Row[]) =>
  rows.filter((r) => r.event_type !== 'llm.tool.result' && r.content.additional_kwargs?.hide_from_ui !== true && !(r.content.type === 'ai' && textOf(r) === ''));

async function upload(threadId: string, name: string, text: string): Promise<void> {
  const form = new FormData();
  form.append('files', new Blob([text], { type: 'text/plain' }), name);
  const res = await fetch(`${replicas[0]}/api/threads/${threadId}/uploads`, { method: 'POST', headers: { 'x-api-key': KEYS.alice }, body: form });
  expect(res.status).toBe(200);
}
async function artifact(threadId: string, virtualPath: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${replicas[1]}/api/threads/${threadId}/artifacts${virtualPath}`, { headers: { 'x-api-key': KEYS.alice } });
  return { status: res.status, text: await res.text() };
}

/** A thread of three turns; the first writes an output file, and the thread has one upload. */
let threadId: string;
let rows: Row[];

beforeAll(async () => {
  buildDist();
  llm = await startScriptedOpenAI(reply);
  cluster = await startCluster({
    apis: 2,
    workers: 2,
    config: {
      models: [{ name: 'scripted', use: 'openai', model: 'scripted-1', base_url: llm.url, api_key: 'test-key' }],
      auth: { api_keys: [{ key: KEYS.alice, user: 'alice' }, { key: KEYS.bob, user: 'bob' }] },
      title: { enabled: false },
      memory: { enabled: false },
      // High enough that no run summarises on its own: only POST /compact does.
      summarization: { enabled: true, trigger_tokens: 1_000_000, keep_messages: 2 },
    },
  });
  replicas = cluster.apis.map((api) => `http://127.0.0.1:${api.port}`);
  threadId = await newThread();
  await upload(threadId, 'notes.txt', 'uploaded notes');
  queued.push(
    { tool_calls: [{ name: 'write_file', args: { description: 'write the report', path: '/mnt/user-data/outputs/report.md', content: '# Report' } }] },
    { content: 'answer to: question 1' },
  );
  for (let i = 1; i <= 3; i++) await ask(threadId, `question ${i}`);
  rows = visible(await rowsOf(threadId));
  expect(rows.map(textOf)).toEqual(['question 1', 'answer to: question 1', 'question 2', 'answer to: question 2', 'question 3', 'answer to: question 3']);
}, 300_000);
afterAll(async () => {
  await cluster?.stop();
  await llm?.close();
}, 60_000);

describe('run feedback (feedback.py)', () => {
  const FEEDBACK_KEYS = ['comment', 'created_at', 'feedback_id', 'message_id', 'rating', 'run_id', 'thread_id', 'user_id'];

  it('PUT sets the caller\'s one row, POST adds rows, GET lists them, stats count them, DELETE removes them', async () => {
    const runId = rows[1]!.run_id;
    const path = `/api/threads/${threadId}/runs/${runId}/feedback`;
    const first = await ok('alice', 'PUT', path, { rating: 1, comment: null });
    expect(Object.keys(first).sort()).toEqual(FEEDBACK_KEYS);
    expect(first).toMatchObject({ run_id: runId, thread_id: threadId, user_id: 'alice', message_id: null, rating: 1, comment: null });
    expect(Number.isNaN(Date.parse(first.created_at))).toBe(false);
    const again = await ok('alice', 'PUT', path, { rating: -1, comment: 'too long' });
    expect(again).toMatchObject({ feedback_id: first.feedback_id, rating: -1, comment: 'too long' });
    const added = await ok('alice', 'POST', path, { rating: 1, message_id: rows[1]!.content.id });
    expect(added).toMatchObject({ rating: 1, message_id: rows[1]!.content.id, comment: null });
    expect(added.feedback_id).not.toBe(first.feedback_id);

    const listed = await ok('alice', 'GET', path);
    expect(listed.map((f: { feedback_id: string }) => f.feedback_id).sort()).toEqual([first.feedback_id, added.feedback_id].sort());
    expect(await ok('alice', 'GET', `${path}/stats`)).toEqual({ run_id: runId, total: 2, positive: 1, negative: 1 });

    // The feeds show the caller's latest row on the run's last answer, null elsewhere.
    const feed = await rowsOf(threadId);
    const answer = feed.find((r) => r.content.id === rows[1]!.content.id);
    expect(answer?.feedback).toEqual({ feedback_id: added.feedback_id, rating: 1, comment: null });
    expect(feed.filter((r) => r.feedback != null)).toHaveLength(1);
    const page = await ok('alice', 'GET', `/api/threads/${threadId}/messages/page?limit=50`);
    expect(page.data.find((r: Row) => r.content.id === rows[1]!.content.id).feedback.feedback_id).toBe(added.feedback_id);

    expect(await ok('alice', 'DELETE', `${path}/${added.feedback_id}`)).toEqual({ success: true });
    expectDetail(await call('alice', 'DELETE', `${path}/${added.feedback_id}`), 404);
    expect(await ok('alice', 'DELETE', path)).toEqual({ success: true });
    expectDetail(await call('alice', 'DELETE', path), 404, 'No feedback found for this run');
    expect(await ok('alice', 'GET', `${path}/stats`)).toEqual({ run_id: runId, total: 0, positive: 0, negative: 0 });
  });

  it('refuses a rating other than ±1 (400), a run not on the thread (404), and another user\'s thread (404)', async () => {
    const runId = rows[1]!.run_id;
    expectDetail(await call('alice', 'PUT', `/api/threads/${threadId}/runs/${runId}/feedback`, { rating: 0 }), 400, 'rating must be +1 or -1');
    expectDetail(await call('alice', 'POST', `/api/threads/${threadId}/runs/${runId}/feedback`, { rating: 2 }), 400, 'rating must be +1 or -1');
    expectDetail(await call('alice', 'PUT', `/api/threads/${threadId}/runs/no-such-run/feedback`, { rating: 1 }), 404);
    expectDetail(await call('bob', 'PUT', `/api/threads/${threadId}/runs/${runId}/feedback`, { rating: 1 }), 404);
    expectDetail(await call('bob', 'GET', `/api/threads/${threadId}/runs/${runId}/feedback/stats`), 404);
    expect((await call('alice', 'PUT', `/api/threads/${threadId}/runs/${runId}/feedback`, { rating: 1, stars: 5 })).status).toBe(422);
  });

  it('is deleted with the thread', async () => {
    const id = await newThread();
    await ask(id, 'hello');
    const [, answer] = visible(await rowsOf(id));
    await ok('alice', 'PUT', `/api/threads/${id}/runs/${answer!.run_id}/feedback`, { rating: 1 });
    await ok('alice', 'PUT', `/api/threads/${id}/goal`, { objective: 'finish' });
    expect((await call('alice', 'DELETE', `/api/langgraph/threads/${id}`)).status).toBe(204);
    // The id is free again: a new thread under it starts with no feedback and no goal.
    await ok('alice', 'POST', '/api/langgraph/threads', { thread_id: id });
    expect(await ok('alice', 'GET', `/api/threads/${id}/runs/${answer!.run_id}/feedback/stats`)).toEqual({ run_id: answer!.run_id, total: 0, positive: 0, negative: 0 });
    expect(await ok('alice', 'GET', `/api/threads/${id}/goal`)).toEqual({ goal: null });
  });
});

describe('thread goal (threads.py)', () => {
  it('GET, PUT (normalised, defaults), DELETE; a free id is claimed by the PUT', async () => {
    const id = crypto.randomUUID();
    expect(await ok('alice', 'GET', `/api/threads/${id}/goal`)).toEqual({ goal: null });
    const set = await ok('alice', 'PUT', `/api/threads/${id}/goal`, { objective: '  ship   the\nrelease ' });
    expect(Object.keys(set.goal).sort()).toEqual(
      ['continuation_count', 'created_at', 'max_continuations', 'max_no_progress_continuations', 'no_progress_count', 'objective', 'status', 'updated_at'].sort(),
    );
    expect(set.goal).toMatchObject({ objective: 'ship the release', status: 'active', continuation_count: 0, max_continuations: 8, no_progress_count: 0, max_no_progress_continuations: 2 });
    expect(await ok('alice', 'GET', `/api/threads/${id}/goal`)).toEqual(set);
    expect((await ok('alice', 'PUT', `/api/threads/${id}/goal`, { objective: 'x', max_continuations: 3 })).goal.max_continuations).toBe(3);
    // Bob may not reach it, nor take the id.
    expectDetail(await call('bob', 'GET', `/api/threads/${id}/goal`), 404);
    expectDetail(await call('bob', 'PUT', `/api/threads/${id}/goal`, { objective: 'mine' }), 404);
    expect(await ok('alice', 'DELETE', `/api/threads/${id}/goal`)).toEqual({ goal: null });
    expect(await ok('alice', 'GET', `/api/threads/${id}/goal`)).toEqual({ goal: null });
  });

  it('refuses an empty objective, one over 4000 characters and max_continuations over 8 (422)', async () => {
    expect((await call('alice', 'PUT', `/api/threads/${threadId}/goal`, { objective: '' })).status).toBe(422);
    expectDetail(await call('alice', 'PUT', `/api/threads/${threadId}/goal`, { objective: '   ' }), 422, 'Goal objective must not be empty.');
    expect((await call('alice', 'PUT', `/api/threads/${threadId}/goal`, { objective: 'x'.repeat(4001) })).status).toBe(422);
    expect((await call('alice', 'PUT', `/api/threads/${threadId}/goal`, { objective: 'x', max_continuations: 9 })).status).toBe(422);
  });
});

describe('branches (threads.py)', () => {
  const BRANCH_KEYS = ['branched_from_message_id', 'history_seed_mode', 'parent_checkpoint_id', 'parent_thread_id', 'thread_id', 'workspace_clone_mode'];

  it('branches from the second message: the new thread holds the first turn and the thread\'s files, and runs on', async () => {
    const target = rows[1]!.content.id;
    const branch = await ok('alice', 'POST', `/api/threads/${threadId}/branches`, { message_id: target, message_ids: [target] });
    expect(Object.keys(branch).sort()).toEqual(BRANCH_KEYS);
    expect(branch).toMatchObject({ parent_thread_id: threadId, branched_from_message_id: target, workspace_clone_mode: 'current_thread_best_effort', history_seed_mode: 'seeded' });
    expect(typeof branch.parent_checkpoint_id).toBe('string');
    const id = branch.thread_id as string;
    expect(id).not.toBe(threadId);

    expect(visible(await rowsOf(id)).map(textOf)).toEqual(['question 1', 'answer to: question 1']);
    const thread = await ok('alice', 'GET', `/api/langgraph/threads/${id}`);
    expect(thread.metadata).toMatchObject({ deerflow_branch: true, branch_parent_thread_id: threadId, branch_parent_message_id: target });
    expect(await artifact(id, '/mnt/user-data/uploads/notes.txt')).toEqual({ status: 200, text: 'uploaded notes' });
    expect(await artifact(id, '/mnt/user-data/outputs/report.md')).toEqual({ status: 200, text: '# Report' });
    const listed = await ok('alice', 'GET', `/api/threads/${id}/uploads/list`);
    expect(JSON.stringify(listed)).toContain('notes.txt');

    await ask(id, 'question 2b');
    expect(visible(await rowsOf(id)).map(textOf)).toEqual(['question 1', 'answer to: question 1', 'question 2b', 'answer to: question 2b']);
    // The source is unchanged, and bob reaches neither.
    expect(visible(await rowsOf(threadId)).map(textOf)).toHaveLength(6);
    expectDetail(await call('bob', 'GET', `/api/threads/${id}/messages`), 404);
    expectDetail(await call('bob', 'POST', `/api/threads/${threadId}/branches`, { message_id: target }), 404);
  });

  it("attributes the inherited turns to DeerFlow's seed runs, one per turn, and regenerates the last one on the branch", async () => {
    const target = rows[3]!.content.id;
    const { thread_id: id } = await ok('alice', 'POST', `/api/threads/${threadId}/branches`, { message_id: target });
    const seeded = visible(await rowsOf(id));
    expect(seeded.map(textOf)).toEqual(['question 1', 'answer to: question 1', 'question 2', 'answer to: question 2']);
    expect(seeded.map((r) => r.run_id)).toEqual([1, 1, 2, 2].map((n) => `branch-seed-${id}-${n}`));
    const all = (await rowsOf(id)) as Array<Row & { metadata: Record<string, unknown> }>;
    for (const row of all) expect(row.metadata).toMatchObject({ branch_seed: true, branch_parent_thread_id: threadId });
    expect(all.filter((r) => r.event_type !== 'llm.tool.result').every((r) => r.metadata.caller === 'lead_agent')).toBe(true);
    // The UI asks a seed turn for its messages and file changes as for any run.
    const seedRun = `branch-seed-${id}-2`;
    expect((await ok('alice', 'GET', `/api/threads/${id}/runs/${seedRun}/messages`)).data.map((r: Row) => r.content.id)).toContain(target);
    expect(await ok('alice', 'GET', `/api/threads/${id}/runs/${seedRun}/workspace-changes`)).toMatchObject({ available: false, files: [] });
    expectDetail(await call('alice', 'GET', `/api/threads/${id}/runs/branch-seed-${threadId}-2/workspace-changes`), 404);

    const prepared = await ok('alice', 'POST', `/api/threads/${id}/runs/regenerate/prepare`, { message_id: target });
    expect(prepared.target_run_id).toBe(`branch-seed-${id}-2`);
    queued.push({ content: 'a branch-only second answer' });
    await turn(id, prepared.input, { checkpoint: prepared.checkpoint, metadata: prepared.metadata });
    const after = visible(await rowsOf(id));
    expect(after.map(textOf)).toEqual(['question 1', 'answer to: question 1', 'question 2', 'a branch-only second answer']);
    // Only the regenerated turn left its seed run; the first stays inherited.
    expect(after.slice(0, 2).map((r) => r.run_id)).toEqual([`branch-seed-${id}-1`, `branch-seed-${id}-1`]);
    expect(after[3]!.run_id).not.toMatch(/^branch-seed-/);
    expect(visible(await rowsOf(threadId)).map(textOf)).toHaveLength(6);
  });

  it('refuses a message that is not an assistant turn, or one no checkpoint ends with (409)', async () => {
    expectDetail(await call('alice', 'POST', `/api/threads/${threadId}/branches`, { message_id: rows[0]!.content.id }), 409, 'This turn can no longer be branched from.');
    expectDetail(await call('alice', 'POST', `/api/threads/${threadId}/branches`, { message_id: 'no-such-message' }), 409);
    expect((await call('alice', 'POST', `/api/threads/${threadId}/branches`, {})).status).toBe(422);
  });
});

describe('regenerate and edit-and-rerun (thread_runs.py)', () => {
  it('regenerate: the prepared input and checkpoint, sent as a run, replace the latest answer', async () => {
    const id = await newThread();
    await ask(id, 'first');
    await ask(id, 'second');
    const before = visible(await rowsOf(id));
    const answer = before[3]!;
    const prepared = await ok('alice', 'POST', `/api/threads/${id}/runs/regenerate/prepare`, { message_id: answer.content.id });
    expect(Object.keys(prepared).sort()).toEqual(['checkpoint', 'input', 'metadata', 'target_run_id']);
    expect(prepared.target_run_id).toBe(answer.run_id);
    expect(Object.keys(prepared.checkpoint).sort()).toEqual(['checkpoint_id', 'checkpoint_map', 'checkpoint_ns']);
    expect(prepared.checkpoint).toMatchObject({ checkpoint_ns: '', checkpoint_map: null });
    expect(prepared.metadata).toEqual({
      regenerate_from_message_id: answer.content.id,
      regenerate_from_run_id: answer.run_id,
      regenerate_checkpoint_id: prepared.checkpoint.checkpoint_id,
    });
    expect(prepared.input.messages).toEqual([{ type: 'human', id: before[2]!.content.id, content: [{ type: 'text', text: 'second' }], additional_kwargs: {} }]);

    queued.push({ content: 'a better second answer' });
    await turn(id, prepared.input, { checkpoint: prepared.checkpoint, metadata: prepared.metadata });
    const after = visible(await rowsOf(id));
    expect(after.map(textOf)).toEqual(['first', 'answer to: first', 'second', 'a better second answer']);
    // The new answer is the new run's, at the position the old one had.
    expect(after[3]!.run_id).not.toBe(answer.run_id);
    expect(after[3]!.seq).toBe(answer.seq);

    expectDetail(await call('alice', 'POST', `/api/threads/${id}/runs/regenerate/prepare`, { message_id: after[1]!.content.id }), 409, 'Only the latest assistant message can be regenerated');
    expectDetail(await call('alice', 'POST', `/api/threads/${id}/runs/regenerate/prepare`, { message_id: after[2]!.content.id }), 409, 'Only visible assistant messages can be regenerated');
    expectDetail(await call('alice', 'POST', `/api/threads/${id}/runs/regenerate/prepare`, { message_id: 'nope' }), 404, 'Message nope not found');
    expectDetail(await call('bob', 'POST', `/api/threads/${id}/runs/regenerate/prepare`, { message_id: after[3]!.content.id }), 404);
  });

  it('edit-regenerate: a new question id, the turn ids it supersedes, and DeerFlow\'s refusals', async () => {
    const id = await newThread();
    await ask(id, 'one');
    await ask(id, 'two');
    const before = visible(await rowsOf(id));
    const path = `/api/threads/${id}/runs/edit-regenerate/prepare`;
    const prepared = await ok('alice', 'POST', path, { human_message_id: before[2]!.content.id, replacement_text: '  two, edited ' });
    expect(Object.keys(prepared).sort()).toEqual(['checkpoint', 'input', 'metadata', 'replacement_human_message_id', 'source_message_ids', 'target_run_id']);
    expect(prepared.source_message_ids).toEqual([before[2]!.content.id, before[3]!.content.id]);
    expect(prepared.input.messages).toEqual([{ type: 'human', id: prepared.replacement_human_message_id, content: [{ type: 'text', text: 'two, edited' }], additional_kwargs: {} }]);
    expect(prepared.metadata).toMatchObject({
      replay_kind: 'edit',
      regenerate_from_message_id: before[3]!.content.id,
      regenerate_from_run_id: before[3]!.run_id,
      edit_from_message_id: before[2]!.content.id,
      edit_message_id: prepared.replacement_human_message_id,
      edit_version_group_id: before[2]!.content.id,
    });
    await turn(id, prepared.input, { checkpoint: prepared.checkpoint, metadata: prepared.metadata });
    expect(visible(await rowsOf(id)).map(textOf)).toEqual(['one', 'answer to: one', 'two, edited', 'answer to: two, edited']);

    const latest = visible(await rowsOf(id));
    expectDetail(await call('alice', 'POST', path, { human_message_id: latest[0]!.content.id, replacement_text: 'x' }), 409, 'Only the latest completed user turn can be edited');
    expectDetail(await call('alice', 'POST', path, { human_message_id: latest[2]!.content.id, replacement_text: 'two, edited' }), 409, 'Edited message is unchanged');
    expectDetail(await call('alice', 'POST', path, { human_message_id: latest[2]!.content.id, replacement_text: '   ' }), 409, 'Edited message cannot be empty');
    await ok('alice', 'PUT', `/api/threads/${id}/goal`, { objective: 'finish' });
    expectDetail(await call('alice', 'POST', path, { human_message_id: latest[2]!.content.id, replacement_text: 'other' }), 409, 'Cannot edit while a goal is active');
  });

  it('a failed edit-and-rerun is hidden and the turn it meant to replace shows again, as DeerFlow does', async () => {
    const id = await newThread();
    await ask(id, 'one');
    await ask(id, 'two');
    const before = visible(await rowsOf(id));
    const prepared = await ok('alice', 'POST', `/api/threads/${id}/runs/edit-regenerate/prepare`, { human_message_id: before[2]!.content.id, replacement_text: 'two, failing' });
    queued.push({ status: 400 });
    await turn(id, prepared.input, { checkpoint: prepared.checkpoint, metadata: prepared.metadata });
    const runs = await ok('alice', 'GET', `/api/langgraph/threads/${id}/runs?limit=10`);
    const attempt = (Array.isArray(runs) ? runs : runs.runs).find((r: { metadata: Record<string, unknown> }) => r.metadata.replay_kind === 'edit');
    expect(attempt.status).toBe('error');
    const after = visible(await rowsOf(id));
    expect(after.map(textOf)).toEqual(['one', 'answer to: one', 'two', 'answer to: two']);
    expect(after.map((r) => r.run_id)).toEqual(before.map((r) => r.run_id));
  });
});

describe('compaction (threads.py, context_compaction.py)', () => {
  it('summarises a long thread on a worker; the chat stays whole and the next run sends the summary and the recent turns', async () => {
    const id = await newThread();
    for (let i = 1; i <= 8; i++) await ask(id, `long question ${i}`);
    const before = visible(await rowsOf(id));
    expect(before).toHaveLength(16);

    const compacted = await ok('alice', 'POST', `/api/threads/${id}/compact`, { force: true });
    expect(Object.keys(compacted).sort()).toEqual(
      ['checkpoint_id', 'compacted', 'preserved_message_count', 'reason', 'removed_message_count', 'summary_updated', 'thread_id', 'total_tokens'].sort(),
    );
    expect(compacted).toMatchObject({ thread_id: id, compacted: true, reason: null, removed_message_count: 14, preserved_message_count: 2, summary_updated: true });
    expect(typeof compacted.checkpoint_id).toBe('string');
    expect(compacted.total_tokens).toBeGreaterThan(0);
    // The summariser read the older turns, not the kept ones.
    const summaryCall = llm.requests.findLast((r) => typeof r.messages[0]?.content === 'string' && (r.messages[0].content as string).startsWith(SUMMARY_PROMPT));
    expect(lastUserText(summaryCall!)).toContain('long question 1');
    expect(lastUserText(summaryCall!)).not.toContain('long question 8');

    // What the UI shows is unchanged.
    expect(visible(await rowsOf(id)).map(textOf)).toEqual(before.map(textOf));

    await ask(id, 'after compaction');
    const sent = llm.requests.at(-1)!;
    const texts = sent.messages.slice(1).map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
    expect(texts[0]).toMatch(/^Summary of the earlier conversation:\nSUMMARY-OF-EARLIER-TURNS/);
    expect(texts.slice(1)).toEqual(['long question 8', 'answer to: long question 8', 'after compaction']);

    // Nothing older than the kept turns is left to compact once more.
    const again = await ok('alice', 'POST', `/api/threads/${id}/compact`, { force: true, keep: { type: 'messages', value: 100 } });
    expect(again).toMatchObject({ compacted: false, reason: 'not_enough_messages', removed_message_count: 0, checkpoint_id: null });
  });

  it('refuses keep.type fraction by name (422), another user\'s thread (404), and answers not_enough_messages for a short one', async () => {
    const id = await newThread();
    await ask(id, 'short');
    expect(await ok('alice', 'POST', `/api/threads/${id}/compact`, { force: true })).toMatchObject({ compacted: false, reason: 'not_enough_messages' });
    expect(await ok('alice', 'POST', `/api/threads/${id}/compact`, { force: false })).toMatchObject({ compacted: false, reason: 'not_enough_messages' });
    expectDetail(await call('alice', 'POST', `/api/threads/${id}/compact`, { keep: { type: 'fraction', value: 0.5 } }), 422, /fraction/);
    expectDetail(await call('bob', 'POST', `/api/threads/${id}/compact`, { force: true }), 404);
  });
});
