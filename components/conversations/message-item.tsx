import { ProvenanceLabel } from '@/components/runs/provenance-label';
import { showsProvenance } from '@/components/runs/provenance-text';
import { RunStepsDisclosure } from '@/components/runs/run-steps-disclosure';
import { turnStepsHeading } from '@/components/runs/turn-steps-heading';
import { SentFiles } from '@/components/files/sent-files';
import { BatchLink } from '@/components/batches/batch-link';
import { cn } from '@/components/ui/cn';
import { AssistantMarkdown } from './assistant-markdown';
import { FrameworkNote, MentionMessage, ReceiptCard, RequestCard } from './team-message-items';
import type { TimelineItem } from './timeline';
import { ToolCallDetails, ToolResultDetails } from './tool-call-details';
import { toolCallLabel, type McpSource } from '@/lib/tool-call-label';

const label = 'mb-1 text-xs font-semibold text-zinc-500 dark:text-zinc-400';

/** One entry of the history. All text here is untrusted: plain text, or markdown without raw HTML. */
export function MessageItem({
  item,
  agentName,
  pending = false,
  awaitingCallId = null,
  awaitingMcp = null,
}: {
  item: TimelineItem;
  agentName: string;
  pending?: boolean;
  /** The tool call the run waits on for approval, if any. */
  awaitingCallId?: string | null;
  /** The MCP server and tool of the call awaiting approval (its interrupt says; no result names it yet). */
  awaitingMcp?: McpSource | null;
}) {
  if (item.kind === 'user' && item.provenance && item.provenance.producer.type !== 'person') {
    // Text the framework (or a member) put in the human channel: labelled and set apart, never a "You" bubble.
    return (
      <li className="min-w-0">
        <div className="max-w-full min-w-0 rounded-lg border border-dashed border-zinc-300 px-3 py-2 sm:max-w-[85%] dark:border-zinc-700">
          <ProvenanceLabel provenance={item.provenance} className="mb-1 block" />
          <p className="text-sm whitespace-pre-wrap break-words text-zinc-700 [overflow-wrap:anywhere] dark:text-zinc-300">{item.text}</p>
          {item.batchId ? <BatchLink batchId={item.batchId} /> : null}
        </div>
        {item.runId ? <RunStepsDisclosure runId={item.runId} heading={turnStepsHeading(item.text)} className="mt-1" /> : null}
      </li>
    );
  }
  if (item.kind === 'user') {
    return (
      <li className="flex min-w-0 flex-col items-end">
        <div className="max-w-[85%] min-w-0">
          <p className={cn(label, 'text-right')}>
            {item.provenance && showsProvenance(item.provenance) ? <ProvenanceLabel provenance={item.provenance} /> : 'You'}
            {pending ? ' · sending…' : ''}
          </p>
          <div
            className={cn(
              'rounded-lg bg-indigo-600 px-3 py-2 text-sm whitespace-pre-wrap break-words text-white [overflow-wrap:anywhere] dark:bg-indigo-500',
              pending && 'opacity-70',
            )}
          >
            {item.text}
          </div>
          {item.attachments ? <SentFiles attachments={item.attachments} className="mt-1 flex flex-col items-end" /> : null}
        </div>
        {/* Beside the bubble, not in it: the open steps take the history's full width. */}
        {item.runId && !pending ? <RunStepsDisclosure runId={item.runId} heading={turnStepsHeading(item.text)} className="mt-1 w-full text-right" /> : null}
      </li>
    );
  }
  if (item.kind === 'mention') return <MentionMessage item={item} />;
  if (item.kind === 'note') return <FrameworkNote item={item} />;
  if (item.kind === 'receipt') return <ReceiptCard item={item} />;
  if (item.kind === 'request') return <RequestCard item={item} />;
  if (item.kind === 'tool') {
    return (
      <li className="min-w-0">
        <ToolResultDetails message={item.message} />
      </li>
    );
  }
  const hasText = item.text.trim() !== '';
  return (
    <li className="min-w-0">
      <div className="max-w-full min-w-0 sm:max-w-[85%]">
        <p className={label}>{agentName}</p>
        <div className="space-y-2">
          {hasText ? (
            <div className="rounded-lg border border-zinc-200 bg-white px-3 py-2 text-sm text-zinc-900 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100">
              <AssistantMarkdown text={item.text} />
            </div>
          ) : item.toolCalls.length === 0 ? (
            // A turn with neither text nor a tool call (a provider's empty completion): said, so the person doesn't
            // read an empty bubble as an answer still coming or as a page that failed to load.
            <p className="rounded-lg border border-dashed border-zinc-300 px-3 py-2 text-sm text-zinc-500 italic dark:border-zinc-700 dark:text-zinc-400">
              The model returned an empty answer.
            </p>
          ) : null}
          {item.toolCalls.length > 0 ? (
            <ul className="space-y-2" aria-label="Tool calls">
              {item.toolCalls.map((c) => (
                <li key={c.id}>
                  <ToolCallDetails
                    name={toolCallLabel({ name: c.name, mcp: c.mcp ?? (c.id === awaitingCallId ? awaitingMcp : null) })}
                    args={c.args}
                    result={c.result}
                    awaitingApproval={c.id === awaitingCallId}
                  />
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      </div>
    </li>
  );
}
