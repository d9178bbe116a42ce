// The agent's bash, end to end through /api/langgraph (issue 7): under bubblewrap, a command the
// model asks for cannot read the host's files, another thread's files, the worker's secrets
// (environment, config, process table) or reach the network (the model server, the API, Redis).
// Without bubblewrap, the agent is not offered bash unless sandbox.allow_host_bash says so.
// test/sandbox/bash-runner.test.ts proves the same of the runner alone.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { detectBwrap } from '../../workers/sandbox/bash-runner.js';
import { agentScript, type AgentScript } from '../support/agent-script.js';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../support/scripted-openai.js';
import { collect, userInput } from '../support/sse.js';
import { startStack, type Stack, type StackOptions } from '../support/stack.js';
import { redisPort } from '../support/test-redis.js';

const bwrap = await detectBwrap();
const tag = randomUUID().slice(0, 8);
const MODEL_KEY = `sk-model-key-${tag}-abcdef`;
const ENV_SECRET = `env-secret-${tag}`;
const ENV_NAME = `WARREN_TEST_ISOLATION_${tag.toUpperCase()}`;
const OTHER_THREAD_MARKER = `other-thread-${tag}`;

let llm: ScriptedOpenAI;
let script: AgentScript;

beforeAll(async () => {
  process.env[ENV_NAME] = ENV_SECRET;
  script = agentScript();
  llm = await startScriptedOpenAI((request) => script.route(request));
});
afterAll(async () => {
  delete process.env[ENV_NAME];
  await llm?.close();
});
beforeEach(() => {
  script.lead.length = 0;
  llm.requests.length = 0;
});

const stackWith = (options: Omit<StackOptions, 'config'> & { sandbox?: Record<string, unknown> } = {}) =>
  startStack({
    ...options,
    config: {
      models: [{ name: 'scripted', use: 'openai', model: 'scripted-1', base_url: llm.url, api_key: MODEL_KEY }],
      title: { enabled: false },
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    },
  });

type Msg = { type: string; content: unknown; status?: string };

/** Runs one agent turn that calls bash with `command`; returns what the tool answered. */
async function bashThroughAgent(stack: Stack, command: string): Promise<string> {
  script.lead.push({ tool_calls: [{ name: 'bash', args: { command } }] }, { content: 'Done.' });
  const { thread_id: id } = await stack.client.threads.create();
  const events = await collect(
    stack.client.runs.stream(id, 'lead_agent', { input: userInput('run it'), streamMode: ['values'], config: { configurable: { model_name: 'scripted' } } }),
  );
  expect(events.at(-1)?.event).toBe('end');
  const state = await stack.client.threads.getState<{ messages: Msg[] }>(id);
  const tool = state.values.messages.find((m) => m.type === 'tool');
  return String(tool?.content ?? '');
}

const toolNames = () => script.leadRequests(llm.requests)[0]?.tools?.map((t) => t.function.name) ?? [];

describe.runIf(bwrap.available)('bash under bubblewrap, driven by the agent', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await stackWith();
  });
  afterAll(async () => stack?.close());

  it('cannot read the host, another thread, or the worker environment, configuration and processes', async () => {
    const other = randomUUID();
    const otherFile = path.join(stack.home, 'threads', other, 'user-data', 'outputs', 'secret.txt');
    mkdirSync(path.dirname(otherFile), { recursive: true });
    writeFileSync(otherFile, OTHER_THREAD_MARKER);
    const configFile = path.join(stack.home, 'config.yaml');
    expect(readFileSync(configFile, 'utf8')).toContain(MODEL_KEY);

    const output = await bashThroughAgent(
      stack,
      [
        'echo "[passwd]"; cat /etc/passwd',
        `echo "[config]"; cat ${configFile} 2>/dev/null || echo no-config`,
        `echo "[other]"; cat ${otherFile} 2>/dev/null || echo no-other-thread`,
        `echo "[home]"; ls ${stack.home} 2>/dev/null || echo no-home`,
        `echo "[cwd-of-worker]"; ls ${process.cwd()} 2>/dev/null || echo no-project`,
        'echo "[env]"; env',
        'echo "[procs]"; ls /proc | grep -E "^[0-9]+$" | wc -l',
        'echo "[environs]"; cat /proc/[0-9]*/environ 2>/dev/null | tr "\\0" "\\n"',
        'echo "[cmdlines]"; cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\\0" " "',
        'echo "[end]"',
      ].join('\n'),
    );
    expect(output).toContain('[end]');
    expect(output).toContain('no-config');
    expect(output).toContain('no-other-thread');
    expect(output).toContain('no-home');
    expect(output).toContain('no-project');
    for (const secret of [MODEL_KEY, ENV_SECRET, ENV_NAME, OTHER_THREAD_MARKER, inject('redisUrl')]) expect(output).not.toContain(secret);
    // The sandbox's own passwd, not the host's.
    const hostUsers = readFileSync('/etc/passwd', 'utf8').split('\n').filter((l) => l && !/^(root|nobody):/.test(l));
    for (const line of hostUsers) expect(output).not.toContain(line);
    // Its own PID namespace: bash and the few commands of this script, not the host's hundreds.
    const procs = Number(/\[procs\]\n(\d+)/.exec(output)?.[1] ?? '999');
    expect(procs).toBeLessThan(10);
    expect(output).not.toMatch(/vitest|node .*worker/);
  });

  it('cannot reach the model server, the API or Redis', async () => {
    const ports = {
      model: new URL(llm.url).port,
      api: new URL(stack.url).port,
      // One Redis, or the first node of a Cluster.
      redis: redisPort(inject('redisUrl')),
    };
    const before = llm.requests.length;
    const probes = Object.entries(ports).map(
      ([name, port]) => `(exec 3<>/dev/tcp/127.0.0.1/${port} && echo "${name}: connected") 2>/dev/null || echo "${name}: unreachable"`,
    );
    const output = await bashThroughAgent(stack, [...probes, 'getent hosts example.com >/dev/null 2>&1 && echo "dns: resolved" || echo "dns: none"'].join('\n'));
    expect(output).toContain('model: unreachable');
    expect(output).toContain('api: unreachable');
    expect(output).toContain('redis: unreachable');
    expect(output).toContain('dns: none');
    expect(output).not.toContain('connected');
    // Only the agent's own two model calls reached the model server.
    expect(llm.requests.length - before).toBe(2);
  });
});

describe('without bubblewrap', () => {
  it('offers no bash, and a bash call the model makes anyway runs nothing', async () => {
    const stack = await stackWith({ bwrapPath: null });
    try {
      const marker = path.join(stack.home, `ran-${tag}`);
      const output = await bashThroughAgent(stack, `touch ${marker}`);
      expect(toolNames()).not.toContain('bash');
      expect(toolNames()).toContain('read_file');
      expect(output).toMatch(/bash/);
      expect(() => readFileSync(marker)).toThrow();
    } finally {
      await stack.close();
    }
  });

  it('offers bash on the host only when sandbox.allow_host_bash is set, and says so', async () => {
    const stack = await stackWith({ bwrapPath: null, sandbox: { allow_host_bash: true } });
    try {
      const output = await bashThroughAgent(stack, 'echo "host: $(env | grep -c WARREN_TEST_ISOLATION)"');
      const bash = script.leadRequests(llm.requests)[0]?.tools?.find((t) => t.function.name === 'bash') as { function: { name: string; description?: string } } | undefined;
      expect(bash?.function.description).toContain('on the host');
      // Even on the host, the command gets a scrubbed environment.
      expect(output).toContain('host: 0');
    } finally {
      await stack.close();
    }
  });
});
