import 'server-only';
import crypto from 'node:crypto';
import type { AIMessage } from '@langchain/core/messages';

/** A tool call id of the server's: the shape the scripted model uses, short enough for every provider (≤ 40). */
export const serverToolCallId = (): string => `call_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;

/**
 * The message with ids the server assigned: its own and its tool calls'. A provider's ids are not identities here:
 * servers reuse completion ids (the thread's reducer replaces a message whose id it already holds, so a reused id
 * would overwrite an earlier answer) and some number tool calls per response (`call_0` every turn: the tool step
 * skips a call whose id already has a result in the thread, and a result would pair with the wrong call). The
 * provider's ids are kept as metadata only (`response_metadata.provider_message_id`, `provider_tool_call_ids`:
 * ours → theirs). Every place a call's id is written is renamed alike (tool_calls, the raw `additional_kwargs`
 * calls, content blocks), so the next request sends one consistent history.
 */
export function withServerId(message: AIMessage): AIMessage {
  const providerId = message.id;
  // lc_kwargs is what a message serializes from (the checkpoint): kept in step with the fields.
  message.id = crypto.randomUUID();
  message.lc_kwargs.id = message.id;
  const renamed = renameToolCalls(message);
  const metadata = {
    ...(providerId ? { provider_message_id: providerId } : {}),
    ...(Object.keys(renamed).length ? { provider_tool_call_ids: renamed } : {}),
  };
  if (Object.keys(metadata).length) {
    message.response_metadata = { ...message.response_metadata, ...metadata };
    message.lc_kwargs.response_metadata = message.response_metadata;
  }
  return message;
}

/** Gives every tool call a server id; returns ours → the provider's (for the calls that had one). */
function renameToolCalls(message: AIMessage): Record<string, string> {
  const calls = message.tool_calls ?? [];
  if (!calls.length) return {};
  const renamed: Record<string, string> = {};
  // The provider's id → our ids for it, in order (a server that repeats an id inside one answer gets one each).
  const ours = new Map<string, string[]>();
  const tool_calls = calls.map((call) => {
    const id = serverToolCallId();
    if (call.id) {
      renamed[id] = call.id;
      ours.set(call.id, [...(ours.get(call.id) ?? []), id]);
    }
    return { ...call, id };
  });
  message.tool_calls = tool_calls;
  message.lc_kwargs.tool_calls = tool_calls;
  // The same ids where they are written again: taken in order, once each, per place.
  const taker = () => {
    const used = new Map<string, number>();
    return (theirs: unknown): string | undefined => {
      if (typeof theirs !== 'string') return undefined;
      const n = used.get(theirs) ?? 0;
      used.set(theirs, n + 1);
      return ours.get(theirs)?.[n];
    };
  };
  const raw = message.additional_kwargs?.tool_calls;
  if (Array.isArray(raw)) {
    const take = taker();
    message.additional_kwargs.tool_calls = raw.map((c) => ({ ...c, id: take(c.id) ?? c.id }));
  }
  if (Array.isArray(message.content)) {
    const take = taker();
    const content = message.content.map((block) => {
      const b = block as unknown as Record<string, unknown>;
      if ((b.type === 'tool_use' || b.type === 'tool_call') && typeof b.id === 'string') return { ...b, id: take(b.id) ?? b.id } as unknown as typeof block;
      return block;
    });
    message.content = content;
    message.lc_kwargs.content = content;
  }
  return renamed;
}
