'use client';

import { useMemo } from 'react';
import { MessageItem } from './message-item';
import type { PendingEcho } from './pending-echo';
import { awaitingApprovalCallId, buildTimeline } from './timeline';
import type { Message } from './types';
import type { McpSource } from '@/lib/tool-call-label';

/** The conversation history, oldest first, with the just-sent message echoed until the server has it. */
export function MessageList({
  messages,
  agentName,
  echo,
  approvalTool = null,
  approvalMcp = null,
}: {
  messages: Message[];
  agentName: string;
  echo: PendingEcho | null;
  /** The tool an approval interrupt names, to mark the call it stopped on. */
  approvalTool?: string | null;
  /** Its MCP server and tool, when it is an MCP tool: the call is named as the approval prompt names it. */
  approvalMcp?: McpSource | null;
}) {
  const items = useMemo(() => buildTimeline(messages), [messages]);
  const awaitingCallId = approvalTool ? awaitingApprovalCallId(items, approvalTool) : null;
  if (items.length === 0 && !echo) {
    return (
      <p className="rounded-lg border border-dashed border-zinc-300 p-6 text-center text-sm text-zinc-500 dark:border-zinc-700 dark:text-zinc-400">
        No messages yet. Write to {agentName} below.
      </p>
    );
  }
  return (
    <ol className="space-y-4">
      {items.map((item) => (
        <MessageItem key={`${item.kind}:${item.id}`} item={item} agentName={agentName} awaitingCallId={awaitingCallId} awaitingMcp={approvalMcp} />
      ))}
      {echo ? <MessageItem item={{ kind: 'user', id: 'pending', text: echo.text }} agentName={agentName} pending /> : null}
    </ol>
  );
}
