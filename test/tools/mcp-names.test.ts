// Tool names for MCP tools: what model APIs accept, stable across workers, and unique.
import { describe, expect, it } from 'vitest';
import { claimMcpToolName, mcpToolName, TOOL_NAME_MAX } from '../../workers/tools/mcp-names.js';

const ALLOWED = /^[a-zA-Z0-9_-]{1,64}$/;

describe('MCP tool names', () => {
  it('joins server and tool with an underscore', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('github_create_issue');
    expect(mcpToolName('my-server', 'get-file')).toBe('my-server_get-file');
  });

  it('replaces characters model APIs refuse', () => {
    expect(mcpToolName('files.v2', 'read file/äö')).toBe('files_v2_read_file___');
    expect(mcpToolName('a', 'tool.name:with spaces')).toMatch(ALLOWED);
  });

  it('shortens a long name with a hash of the pair, the same every time', () => {
    const server = 's'.repeat(40);
    const name = mcpToolName(server, 't'.repeat(40));
    expect(name).toHaveLength(TOOL_NAME_MAX);
    expect(name).toMatch(ALLOWED);
    expect(mcpToolName(server, 't'.repeat(40))).toBe(name);
    expect(mcpToolName(server, `${'t'.repeat(39)}u`)).not.toBe(name);
  });

  it('gives a name that is already taken a hashed form, first come keeps the plain one', () => {
    const taken = new Set<string>();
    expect(claimMcpToolName('a_b', 'c', taken)).toBe('a_b_c');
    const second = claimMcpToolName('a', 'b_c', taken);
    expect(second).toMatch(/^a_b_c_[0-9a-f]{8}$/);
    const third = claimMcpToolName('a', 'b.c', taken);
    expect(third).toMatch(/^a_b_c_[0-9a-f]{8}$/);
    expect(new Set([second, third]).size).toBe(2);
    expect(taken.size).toBe(3);
  });

  it('gives up on a pair whose hashed form is taken too', () => {
    const taken = new Set<string>();
    expect(claimMcpToolName('x', 'y', taken)).toBe('x_y');
    const hashed = claimMcpToolName('x', 'y', taken);
    expect(hashed).toMatch(/^x_y_[0-9a-f]{8}$/);
    expect(claimMcpToolName('x', 'y', taken)).toBeNull();
  });
});
