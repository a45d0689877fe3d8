import { tool } from '@langchain/core/tools';
import type { BaseMessage } from '@langchain/core/messages';
import { vi } from 'vitest';
import { z } from 'zod';
import { ScriptedChatModel } from '@/server/agents/scripted-model';
import { registerToolGroup } from '@/server/agents/tools/registry';

/** A tool group whose `echo` returns its text: a tool result exactly as long as a test needs. */
export const ECHO_GROUP = 'test_compaction_echo';

export function registerEchoTool(): void {
  registerToolGroup(ECHO_GROUP, () => [tool(({ text }) => text, { name: 'echo', description: 'Returns the text.', schema: z.object({ text: z.string() }) })]);
}

export type RecordedCall = { messages: BaseMessage[]; system: string | undefined };

/**
 * Record what every scripted model call receives (the agent's turns and the framework's summary calls), while the
 * model still answers as usual: a recording wrapper around the one model seam.
 */
export function recordModelCalls(): { calls: RecordedCall[]; agentCalls: () => BaseMessage[][]; restore: () => void } {
  const calls: RecordedCall[] = [];
  const original = ScriptedChatModel.prototype._generate;
  type Generate = ScriptedChatModel['_generate'];
  const spy = vi.spyOn(ScriptedChatModel.prototype, '_generate').mockImplementation(function (this: ScriptedChatModel, ...args: Parameters<Generate>) {
    calls.push({ messages: [...args[0]], system: (args[1] as { ensembleSystemCall?: string }).ensembleSystemCall });
    return original.apply(this, args);
  });
  return { calls, agentCalls: () => calls.filter((c) => c.system === undefined).map((c) => c.messages), restore: () => spy.mockRestore() };
}

/** ceil(UTF-8 bytes / 4): the documented estimate, written out independently of server/agents/compaction/tokens.ts. */
export const estimate = (text: string) => Math.ceil(Buffer.byteLength(text, 'utf8') / 4);

/** Text of exactly `tokens` estimated tokens (4 ASCII bytes each), in words so it reads as text. */
export const filler = (tokens: number, word = 'data') => (word.slice(0, 4).padEnd(4, 'x')).repeat(tokens);
