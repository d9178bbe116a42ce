// The process configuration read from the environment: the listen backlog (issue "exactly-once
// runs under faults": a burst of connects past Node's default of 511 was reset).
import { describe, expect, it } from 'vitest';
import { readEnvConfig } from '../../src/config/env.js';

describe('environment configuration', () => {
  it('queues 4,096 connections before they are accepted unless WARREN_LISTEN_BACKLOG says otherwise', () => {
    expect(readEnvConfig({}).listenBacklog).toBe(4096);
    expect(readEnvConfig({ WARREN_LISTEN_BACKLOG: '16384' }).listenBacklog).toBe(16_384);
  });

  it('listens on loopback unless HOST says otherwise (containers set 0.0.0.0)', () => {
    expect(readEnvConfig({}).host).toBe('127.0.0.1');
    expect(readEnvConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  it('refuses a backlog that is not a positive integer, naming the variable', () => {
    for (const bad of ['0', '-1', '1.5', 'many', '70000']) {
      expect(() => readEnvConfig({ WARREN_LISTEN_BACKLOG: bad })).toThrow(/WARREN_LISTEN_BACKLOG/);
    }
  });

  it('reads how long deriving schemas from types may take from LangGraph\'s LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS (#32)', () => {
    expect(readEnvConfig({}).schemaResolveTimeoutMs).toBeUndefined();
    expect(readEnvConfig({ LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS: '60000' }).schemaResolveTimeoutMs).toBe(60_000);
    for (const bad of ['0', '-5', '1.5', 'soon']) {
      expect(() => readEnvConfig({ LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS: bad })).toThrow(/LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS/);
    }
  });

  it('reads the channel secrets key as 64 hex digits or base64, and refuses anything else without echoing it (#31)', () => {
    expect(readEnvConfig({}).channelSecretsKey).toBeUndefined();
    expect(readEnvConfig({ WARREN_CHANNEL_SECRETS_KEY: 'ab'.repeat(32) }).channelSecretsKey).toBe('ab'.repeat(32));
    const base64 = Buffer.alloc(32, 1).toString('base64');
    expect(readEnvConfig({ WARREN_CHANNEL_SECRETS_KEY: base64 }).channelSecretsKey).toBe(base64);
    for (const bad of ['short-secret-value', 'ab'.repeat(31), Buffer.alloc(16).toString('base64')]) {
      expect(() => readEnvConfig({ WARREN_CHANNEL_SECRETS_KEY: bad })).toThrow(/WARREN_CHANNEL_SECRETS_KEY/);
      expect(() => readEnvConfig({ WARREN_CHANNEL_SECRETS_KEY: bad })).not.toThrow(bad);
    }
  });
});
