import { describe, expect, it } from 'vitest';
import { MCP_TOOL_NAME, MCP_TOOL_PREFIX, TOOL_NAME_MAX, mcpServerTag, mcpServerTagOf, mcpToolName } from '@/lib/mcp/tool-name';
import { ALL_TOOL_NAMES } from '@/lib/tool-groups';

const PROVIDER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const SERVER_A = '6f1c2a9e-0b7d-4c1e-9a55-0f3b1d2c4e5a';
const SERVER_B = '0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a';

describe('the model-facing name of an MCP tool', () => {
  it('keeps a tool name providers accept, under its server tag', () => {
    const name = mcpToolName(SERVER_A, 'create_issue');
    expect(name).toBe(`mcp_${mcpServerTag(SERVER_A)}_create_issue`);
    expect(name).toMatch(PROVIDER_NAME);
    expect(mcpServerTagOf(name)).toBe(mcpServerTag(SERVER_A));
  });

  it('gives the same tool of two servers two names, and the same inputs the same name', () => {
    expect(mcpToolName(SERVER_A, 'echo')).not.toBe(mcpToolName(SERVER_B, 'echo'));
    expect(mcpToolName(SERVER_A, 'echo')).toBe(mcpToolName(SERVER_A, 'echo'));
  });

  it('fits the longest tool part as it is, and hashes one character more (ASCII)', () => {
    const room = TOOL_NAME_MAX - MCP_TOOL_PREFIX.length - 8 - 1;
    const atLimit = 'a'.repeat(room);
    expect(mcpToolName(SERVER_A, atLimit)).toBe(`mcp_${mcpServerTag(SERVER_A)}_${atLimit}`);
    expect(mcpToolName(SERVER_A, atLimit)).toHaveLength(TOOL_NAME_MAX);
    const past = mcpToolName(SERVER_A, `${atLimit}a`);
    expect(past).toMatch(PROVIDER_NAME);
    expect(past).not.toBe(mcpToolName(SERVER_A, atLimit));
    expect(past.length).toBeLessThanOrEqual(TOOL_NAME_MAX);
  });

  it('turns dotted, slashed, CJK and emoji names into valid, distinct names', () => {
    const names = ['files.read', 'files/read', 'files_read', '読み込み', '読み込む', '🔥fire', '🧯fire', 'x'.repeat(128), `${'x'.repeat(127)}y`];
    const out = names.map((n) => mcpToolName(SERVER_A, n));
    for (const name of out) {
      expect(name).toMatch(PROVIDER_NAME);
      expect(name).toMatch(MCP_TOOL_NAME);
    }
    expect(new Set(out).size).toBe(names.length);
  });

  it('never names a built-in tool (none starts with the prefix), and a built-in is not an MCP name', () => {
    for (const name of ALL_TOOL_NAMES) {
      expect(name.startsWith(MCP_TOOL_PREFIX)).toBe(false);
      expect(mcpServerTagOf(name)).toBeNull();
    }
    expect(mcpServerTagOf('mcp_notahex!_x')).toBeNull();
    expect(mcpServerTagOf(`mcp_0123abcd_${'a'.repeat(52)}`)).toBeNull();
  });
});
