import type { ReactNode } from 'react';
import { Badge } from '@/components/ui/misc';
import { prettyValue, previewValue } from '@/lib/tool-value-format';
import type { Message } from './types';
import { toolCallLabel } from '@/lib/tool-call-label';
import { batchIdOfResult } from '@/lib/batch-ref';
import { BatchLink } from '@/components/batches/batch-link';

const preClass =
  'mt-1 max-h-80 overflow-y-auto whitespace-pre-wrap break-words [overflow-wrap:anywhere] rounded-md bg-zinc-100 p-2 font-mono text-xs text-zinc-800 dark:bg-zinc-950 dark:text-zinc-200';

function Disclosure({ summary, children }: { summary: ReactNode; children: ReactNode }) {
  return (
    <details className="group min-w-0 rounded-md border border-zinc-200 bg-white text-sm dark:border-zinc-700 dark:bg-zinc-900">
      <summary className="flex cursor-pointer list-none flex-wrap items-center gap-2 px-3 py-2 marker:hidden focus-visible:outline-2 focus-visible:outline-indigo-500 [&::-webkit-details-marker]:hidden">
        <span aria-hidden className="inline-block transition-transform group-open:rotate-90">
          ▸
        </span>
        {summary}
      </summary>
      <div className="space-y-2 border-t border-zinc-200 px-3 py-2 dark:border-zinc-700">{children}</div>
    </details>
  );
}

/** The outcome word and tone of a tool result: the person's decline is not the tool failing. */
function outcomeOf(result: Message): { word: string; tone: 'danger' | 'neutral' | 'success' } {
  if (result.declined) return { word: 'Declined', tone: 'neutral' };
  return result.status === 'error' ? { word: 'Failed', tone: 'danger' } : { word: 'Result', tone: 'success' };
}

/**
 * One tool call and (when it has answered) its result, collapsed to a line by default. A result with status 'error'
 * is marked Failed in red, or Declined when the person declined the call (it never ran).
 */
export function ToolCallDetails({
  name,
  args,
  result,
  awaitingApproval = false,
}: {
  name: string;
  args: unknown;
  result: Message | null;
  /** The run is stopped on this call, waiting for the person to approve it. */
  awaitingApproval?: boolean;
}) {
  const preview = previewValue(args);
  const outcome = result ? outcomeOf(result) : null;
  return (
    <Disclosure
      summary={
        <>
          <span className="font-medium">
            Tool call: <span className="font-mono break-all">{name}</span>
          </span>
          {preview ? <span className="min-w-0 truncate font-mono text-xs text-zinc-500 dark:text-zinc-400">{preview}</span> : null}
          {/* The word carries the outcome, not the colour alone. */}
          <Badge tone={outcome?.tone ?? 'warning'} className="ml-auto">
            {outcome?.word ?? (awaitingApproval ? 'Needs approval' : 'No result yet')}
          </Badge>
        </>
      }
    >
      <div>
        <div className="text-xs font-semibold text-zinc-600 dark:text-zinc-400">Arguments</div>
        <pre className={preClass}>{prettyValue(args) || '(none)'}</pre>
      </div>
      <div>
        <div className="text-xs font-semibold text-zinc-600 dark:text-zinc-400">Result</div>
        {result ? <ResultText message={result} /> : <p className="text-xs text-zinc-500 dark:text-zinc-400">
            {awaitingApproval ? 'Waiting for your approval below.' : 'The tool has not answered yet.'}
          </p>}
      </div>
    </Disclosure>
  );
}

/** A tool's result as text; a `batch_task` result links to the batch it names. */
function ResultText({ message }: { message: Message }) {
  const batchId = batchIdOfResult(message.toolName, message.text);
  return (
    <>
      <pre className={preClass}>{prettyValue(message.text) || '(empty)'}</pre>
      {batchId ? <BatchLink batchId={batchId} /> : null}
    </>
  );
}

/** A tool result whose call is not in the history. */
export function ToolResultDetails({ message }: { message: Message }) {
  const outcome = outcomeOf(message);
  return (
    <Disclosure
      summary={
        <>
          <span className="font-medium">
            Tool result{message.toolName ? ': ' : ''}
            {message.toolName ? <span className="font-mono break-all">{toolCallLabel({ name: message.toolName, mcp: message.mcp })}</span> : null}
          </span>
          {message.status === 'error' ? (
            <Badge tone={outcome.tone} className="ml-auto">
              {outcome.word}
            </Badge>
          ) : null}
        </>
      }
    >
      <ResultText message={message} />
    </Disclosure>
  );
}
