/**
 * Run events → what the steps list shows. Pure: every label and figure is decided here, the component only lays
 * them out. Event text is untrusted (model and tool output): it is carried as plain strings, never markup.
 */
import type { ApiRunEvent, RunOutcome } from '@/lib/types/run-events';
import { cappedText, stopReasonLabel } from '@/lib/stop-reason-label';
import { toolCallLabel } from '@/lib/tool-call-label';
import { batchIdOfResult } from '@/lib/batch-ref';

const numberFormat = new Intl.NumberFormat('en-US');
export const formatCount = (n: number) => numberFormat.format(n);

/** Tokens as reported, or "not reported" — an absent figure is never shown as zero. */
export const formatTokens = (n: number | undefined) => (typeof n === 'number' ? formatCount(n) : 'not reported');

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 999.5) return `${Math.round(ms)} ms`;
  const tenths = Math.round(ms / 100) / 10;
  if (tenths < 60) return `${tenths.toFixed(1)} s`;
  const seconds = Math.round(ms / 1_000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** A tool call's argument text, indented when it is whole JSON; a cut-off text is shown as it came. */
export function formatArgs(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

export type StepTone = 'neutral' | 'info' | 'success' | 'warning' | 'danger';

type Base = { key: string; seq: number; at: string; title: string; tone: StepTone };

export type StepItem =
  | (Base & { kind: 'started'; detail: string })
  | (Base & { kind: 'model'; detail: string; error: string | null })
  | (Base & { kind: 'assistant'; text: string; truncated: boolean; toolCalls: Array<{ id: string; name: string; args: string; truncated: boolean }> })
  /** batchId: the batch a `batch_task` call started (its result names it), linked from the step. */
  | (Base & { kind: 'tool'; detail: string; result: string; truncated: boolean; batchId: string | null })
  | (Base & { kind: 'interrupt'; detail: string })
  | (Base & { kind: 'resume'; detail: string })
  | (Base & { kind: 'compaction'; detail: string })
  | (Base & { kind: 'finished'; detail: string; error: string | null })
  /** Something the run could not do as its setup says (MCP servers it could not use), told so it isn't silent. */
  | (Base & { kind: 'notice'; detail: string })
  /** An event type this page does not know yet (a newer server): shown by its name rather than dropped. */
  | (Base & { kind: 'other'; detail: string });

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function interruptText(value: unknown): { title: string; detail: string } {
  if (isRecord(value) && value.type === 'approval' && typeof value.tool === 'string') {
    // An MCP tool by its own name and its server's (the model's name for it is generated: lib/mcp/tool-name.ts).
    const mcp = isRecord(value.mcp) && typeof value.mcp.tool === 'string' && typeof value.mcp.server === 'string' ? value.mcp : null;
    const tool = toolCallLabel({ name: value.tool, mcp: mcp ? { server: String(mcp.server), tool: String(mcp.tool) } : null });
    return { title: `Waiting for approval: ${tool}`, detail: 'The tool runs only once the person approves it.' };
  }
  if (isRecord(value) && value.type === 'clarification' && typeof value.question === 'string') {
    return { title: 'Asked the person a question', detail: value.question };
  }
  return { title: 'Waiting for input', detail: '' };
}

function resumeText(value: unknown): string {
  if (isRecord(value) && typeof value.approved === 'boolean') {
    const note = typeof value.note === 'string' && value.note.trim() ? ` — ${value.note.trim()}` : '';
    return (value.approved ? 'Approved' : 'Declined') + note;
  }
  if (typeof value === 'string') return `Answered: ${value}`;
  return 'Answered';
}

const STARTED: Record<'start' | 'resume' | 'continue', string> = {
  start: 'Run started',
  resume: 'Run resumed',
  continue: 'Run continued after a restart',
};

const OUTCOME: Record<RunOutcome, { title: string; tone: StepTone }> = {
  completed: { title: 'Run completed', tone: 'success' },
  failed: { title: 'Run failed', tone: 'danger' },
  cancelled: { title: 'Run cancelled', tone: 'warning' },
  interrupted: { title: 'Run paused for input', tone: 'info' },
};

/** Why a model call waits for its provider, in words. */
function providerWaitText(event: Extract<ApiRunEvent, { type: 'model.wait' }>): string {
  switch (event.reason) {
    case 'queue':
      return `${event.ahead ?? 0} earlier ${event.ahead === 1 ? 'call' : 'calls'} to this provider first`;
    case 'concurrency':
      return `${event.inFlight ?? event.max} ${event.inFlight === 1 ? 'call' : 'calls'} in flight, its limit`;
    case 'rate':
      return `its limit of ${event.perMinute} calls a minute is reached`;
  }
}

/**
 * MCP servers the agent names that the run could not use. By id: a deleted server's name went with it, and another
 * account's server must not be named (the catalog answers both alike: "Not an MCP server you can use").
 */
function missingServersText(ids: readonly string[]): { title: string; detail: string } {
  const one = ids.length === 1;
  return {
    title: one
      ? `MCP server “${ids[0]}” no longer exists or is not yours to use; its tools were not offered`
      : `${ids.length} MCP servers no longer exist or are not yours to use; their tools were not offered`,
    detail: `${one ? 'Server' : 'Servers'} ${ids.join(', ')}: edit the agent to take ${one ? 'it' : 'them'} out of its MCP tools.`,
  };
}

/** Why a run stopped early, in the words every surface uses (lib/stop-reason-label.ts); '' when it did not. */
export function stopReasonText(reason: string | null | undefined): string {
  const capped = cappedText(reason);
  return capped ? `Stopped early (${capped})` : '';
}

export function stepItem(event: ApiRunEvent): StepItem {
  const base = { key: `${event.runId}:${event.seq}`, seq: event.seq, at: event.at };
  switch (event.type) {
    case 'run.started':
      return { ...base, kind: 'started', tone: 'neutral', title: STARTED[event.kind] ?? 'Run started', detail: `Model ${event.model}` };
    case 'model.call': {
      const tokens =
        event.inputTokens === undefined && event.outputTokens === undefined
          ? 'tokens not reported'
          : `${formatTokens(event.inputTokens)} in · ${formatTokens(event.outputTokens)} out`;
      const parts = [...(event.attempt ? [`attempt ${event.attempt}`] : []), tokens, formatDuration(event.latencyMs)];
      if (event.finishReason) parts.push(`finish: ${event.finishReason}`);
      return {
        ...base,
        kind: 'model',
        tone: event.error ? 'danger' : 'neutral',
        title: `${event.system === 'summary' ? 'System model call (summary)' : 'Model call'} · ${event.model}`,
        detail: parts.join(' · '),
        error: event.error ?? null,
      };
    }
    case 'model.wait':
      return { ...base, kind: 'model', tone: 'info', title: `Waiting for the model provider · ${event.model}`, detail: providerWaitText(event), error: null };
    case 'step.assistant': {
      // An MCP call is named by its tool and server (lib/tool-call-label.ts), as its result and its approval are.
      const calls = event.toolCalls.map((c) => ({ id: c.id, name: toolCallLabel(c), args: formatArgs(c.args), truncated: c.truncated === true }));
      const said = calls.length === 0 ? 'Assistant replied' : `Assistant called ${calls.map((c) => c.name).join(', ')}`;
      // Calls a guard removed never ran: named, with the cap that removed them.
      const removed = event.removedToolCalls ?? [];
      const capped = cappedText(event.stopReason);
      const title = removed.length ? `${said}; not run: ${removed.map((c) => toolCallLabel(c)).join(', ')}${capped ? ` (${capped})` : ''}` : said;
      return { ...base, kind: 'assistant', tone: removed.length ? 'warning' : 'neutral', title, text: event.text, truncated: event.truncated === true, toolCalls: calls };
    }
    case 'step.tool':
      return {
        ...base,
        kind: 'tool',
        tone: event.declined ? 'warning' : event.status === 'error' ? 'danger' : 'success',
        title: `Tool ${event.mcp ? `${event.mcp.tool} of MCP server ${event.mcp.server}` : event.tool}${event.origin ? ` (${event.origin})` : ''} ${event.declined ? 'declined by you' : event.status === 'error' ? 'failed' : 'returned'}`,
        // The receipt id is what an answer cites ([r1 calculator]): shown so a person can find the call.
        detail: [
          // A skill it read, by reference (ADR 061): which file of which version of the pack (its content hash).
          ...(event.skill ? [`Skill ${event.skill.name}, ${event.skill.path}, version ${event.skill.hash.slice(0, 12)}`] : []),
          ...(event.receipt ? [`Receipt ${event.receipt}`] : []),
          formatDuration(event.durationMs),
        ].join(' · '),
        result: event.result,
        truncated: event.truncated === true,
        batchId: batchIdOfResult(event.tool, event.result),
      };
    case 'interrupt':
      return { ...base, kind: 'interrupt', tone: 'info', ...interruptText(event.interrupt) };
    case 'resume':
      return { ...base, kind: 'resume', tone: 'info', title: 'Resumed', detail: resumeText(event.value) };
    case 'compaction': {
      const n = event.removed.length;
      const estimate = event.counter === 'estimate' ? ' (estimated)' : '';
      return {
        ...base,
        kind: 'compaction',
        tone: 'info',
        title: 'Earlier turns summarized',
        detail: `${formatCount(n)} ${n === 1 ? 'message' : 'messages'}, tokens ${formatCount(event.tokensBefore)} → ${formatCount(event.tokensAfter)}${estimate}`,
      };
    }
    case 'tools.unavailable':
      return { ...base, kind: 'notice', tone: 'warning', ...missingServersText(event.mcpServers) };
    case 'run.finished': {
      const outcome = OUTCOME[event.outcome] ?? { title: `Run finished (${event.outcome})`, tone: 'neutral' as const };
      return { ...base, kind: 'finished', ...outcome, title: stopReasonLabel(event.outcome, event.stopReason, outcome.title), detail: stopReasonText(event.stopReason), error: event.error ?? null };
    }
  }
  return { ...base, kind: 'other', tone: 'neutral', title: `Event ${String((event as { type: unknown }).type)}`, detail: '' };
}

export const stepItems = (events: readonly ApiRunEvent[]): StepItem[] => events.map(stepItem);
