// The checks a run-create body passes before anything is stored: fields Warren refuses by name,
// the custom agent it names, and where its webhook may go. HTTP runs and cron ticks share them.
import { mayReach, type Identity } from '../auth/identity.js';
import { OptionUnsupportedError } from '../errors.js';
import { assertPublicHost } from '../net/outbound-guard.js';
import { AgentExistsError, AgentNameInvalidError, isAgentName, type CustomAgentStore } from '../agents/agents.js';
import { CheckpointThreadMismatchError, RunAgentUnknownError, WebhookRefusedError } from './admission.errors.js';
import type { RunCreate } from './run-create.schema.js';

/** A webhook must reach a public host (unless config allows private ones): refused now, not at the end. */
export async function checkWebhook(url: string | null | undefined, allowPrivate: boolean): Promise<void> {
  if (!url) return;
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new WebhookRefusedError(`webhook: ${parsed.protocol} is not http or https.`);
  if (allowPrivate) return;
  await assertPublicHost(parsed, 'webhooks').catch((err: unknown) => {
    throw new WebhookRefusedError(`webhook: ${err instanceof Error ? err.message : String(err)}`);
  });
}

/** A run field from `config.configurable` or `context` (DeerFlow's UI sends its fields in context). */
function runFieldOf(body: Pick<RunCreate, 'config' | 'context'>, field: string): unknown {
  const configurable = body.config?.configurable as Record<string, unknown> | undefined;
  return configurable?.[field] ?? (body.context as Record<string, unknown> | null | undefined)?.[field];
}

export async function checkAgentName(body: Pick<RunCreate, 'config' | 'context'>, agents: Pick<CustomAgentStore, 'get'>, caller: Identity): Promise<void> {
  const name = runFieldOf(body, 'agent_name');
  if (name === undefined || name === null || name === '') return;
  if (typeof name !== 'string' || !isAgentName(name)) {
    throw new AgentNameInvalidError(`agent_name: ${JSON.stringify(name)} is not an agent name (letters, digits and hyphens, at most 64).`);
  }
  const agent = await agents.get(name.toLowerCase());
  // DeerFlow's "new agent" page chats with the lead agent in bootstrap mode under a name that
  // does not exist yet; its setup_agent tool creates (or, for the caller's own, rewrites) it.
  if (runFieldOf(body, 'is_bootstrap') === true) {
    if (agent && !mayReach(caller, agent.owner)) throw new AgentExistsError(`agent_name: a custom agent named '${name.toLowerCase()}' exists already (names are unique; see GET /api/agents/check).`);
    return;
  }
  // Another user's agent is as unknown as one that does not exist.
  if (!agent || !mayReach(caller, agent.owner)) throw new RunAgentUnknownError(`agent_name: no custom agent named '${name.toLowerCase()}' (see GET /api/agents).`);
}

/**
 * LangGraph run-create fields Warren does not do, refused by name rather than dropped. A value
 * that asks for what Warren does anyway (`durability: "sync"`, an empty `feedback_keys`) passes.
 */
export function refuseUnsupported(body: Partial<RunCreate>): void {
  const refuse = (field: string, why: string) => {
    throw new OptionUnsupportedError(`${field}: ${why}`);
  };
  if (body.durability === 'exit' || body.checkpoint_during === false) {
    refuse(body.durability === 'exit' ? 'durability' : 'checkpoint_during', 'Warren stores a checkpoint after every step (runs resume from it after a worker fails); checkpointing only at exit is not supported');
  }
  if (body.feedback_keys && body.feedback_keys.length > 0) refuse('feedback_keys', 'LangSmith feedback URLs are not supported by Warren');
  if (body.langsmith_tracer) refuse('langsmith_tracer', 'LangSmith tracing per run is not supported by Warren');
  if (body.strict_resume === true) refuse('strict_resume', 'strict resume is not supported by Warren');
}

/**
 * A checkpoint reference as Warren's own history and state give it back carries its `thread_id`
 * (LangGraph's server drops the key unread): it is taken when it is the request's thread, and
 * refused by name when it is another's, rather than reading that thread's checkpoint id here.
 */
export function checkCheckpointThread(ref: { thread_id?: string } | null | undefined, threadId: string | null, field = 'checkpoint'): void {
  if (ref?.thread_id === undefined || ref.thread_id === threadId) return;
  throw new CheckpointThreadMismatchError(
    `${field}.thread_id: ${JSON.stringify(ref.thread_id)} is not this request's thread (${threadId === null ? 'a stateless run has none yet' : threadId}).`,
  );
}
