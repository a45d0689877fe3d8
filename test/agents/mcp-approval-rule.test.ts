import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { approvalMatcher, mcpServerRule, serverIdOfRule } from '@/lib/mcp/approval-rule';
import { mcpServerTag, mcpToolName } from '@/lib/mcp/tool-name';
import { agentApprovalToolsSchema } from '@/lib/schemas/agent';

// "Ask before every tool of this server" (ADR 057) as the approval guard and a delegated child's deny list read it.
// What must not happen: a tool of the server (one it adds later included) running without the rule holding it; the
// rule holding another server's tools or a built-in; a malformed rule passing as a server rule.

describe('the per-server approval rule', () => {
  const a = crypto.randomUUID();
  // Another server whose tag differs (a 32-bit clash may only ask more: lib/mcp/approval-rule.ts).
  let b = crypto.randomUUID();
  while (mcpServerTag(b) === mcpServerTag(a)) b = crypto.randomUUID();

  it("holds every tool of its server, any name it may add later, and nothing of another server's or a built-in", () => {
    const needs = approvalMatcher([mcpServerRule(a), 'calculator']);
    for (const tool of ['echo', 'added-later', 'x'.repeat(128), 'dots.in.name', '界']) expect(needs(mcpToolName(a, tool))).toBe(true);
    expect(needs(mcpToolName(b, 'echo'))).toBe(false);
    expect(needs('calculator')).toBe(true);
    expect(needs('current_time')).toBe(false);
  });

  it('single tool rules keep meaning one tool', () => {
    const needs = approvalMatcher([mcpToolName(a, 'echo')]);
    expect(needs(mcpToolName(a, 'echo'))).toBe(true);
    expect(needs(mcpToolName(a, 'other'))).toBe(false);
  });

  it('is a server rule only with a UUID after the prefix; the schema refuses other mcp_server: text', () => {
    expect(serverIdOfRule(mcpServerRule(a))).toBe(a);
    for (const bad of ['mcp_server:', 'mcp_server:abc', `mcp_server:${a}x`, `mcp_server:${a.toUpperCase()}`, `MCP_SERVER:${a}`, `mcp_server: ${a}`]) {
      expect(serverIdOfRule(bad)).toBeNull();
      expect(agentApprovalToolsSchema.safeParse([bad]).success).toBe(false);
    }
    expect(agentApprovalToolsSchema.safeParse([mcpServerRule(a), mcpToolName(b, 'echo'), 'calculator']).success).toBe(true);
    expect(agentApprovalToolsSchema.safeParse([mcpServerRule(a), mcpServerRule(a)]).success).toBe(false);
  });
});
