import 'server-only';
import type { BaseMessage } from '@langchain/core/messages';
import { isCommand } from '@langchain/langgraph';
import type { ContentKind, Producer, Provenance } from '@/lib/types/provenance';
import { ensembleMeta } from './message-meta';

/*
 * Provenance is written only where the server builds a message (runs.ts start, teams/execution.ts, teams/mentions.ts,
 * thread-notes.ts) into additional_kwargs.ensemble.provenance. Nothing else can put it there: request bodies are
 * strict schemas without a meta field, and stripEnsembleMeta() removes additional_kwargs.ensemble from every model
 * response and tool result before the graph stores it.
 */

export const PERSON: Producer = { type: 'person' };
export const FRAMEWORK: Producer = { type: 'framework' };

export const personMessage = (): Provenance => ({ contentKind: 'person_message', producer: PERSON });

/** A team request: from the person (composer, @mention) or from the member that sent it with send_member. */
export function teamRequest(sender: { memberId: string; name: string } | null): Provenance {
  return { contentKind: 'team_request', producer: sender ? { type: 'member', memberId: sender.memberId, name: sender.name } : PERSON };
}

/** A result the framework returns to its requester, about the member that produced it. */
export const receipt = (workerName: string): Provenance => ({ contentKind: 'receipt', producer: FRAMEWORK, about: workerName });

export const clarificationAnswer = (): Provenance => ({ contentKind: 'clarification_answer', producer: PERSON });

/** The person's own message that @mentioned members (recorded as a note exchange, not a run of the agent). */
export const mentionMessage = (): Provenance => ({ contentKind: 'mention', producer: PERSON });

/** The framework's short note after an @mention send ("Queued a request to …"). */
export const frameworkNote = (): Provenance => ({ contentKind: 'note', producer: FRAMEWORK });

const CONTENT_KINDS: ReadonlySet<string> = new Set<ContentKind>([
  'person_message',
  'team_request',
  'receipt',
  'shared_context',
  'clarification_answer',
  'mention',
  'note',
  'compaction',
  'delegated_task',
  'assistant',
  'tool_result',
]);

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * A tool result's origin when it came from outside the app: an MCP result's (`mcp:<server>/<tool>`, from the artifact
 * the MCP tool group writes from its server record, server/mcp/tool-group/mcp-tools.ts) or a web result's
 * (`web:<host>` or `web-search:<provider>`, server/web/tools.ts) or a skill's read (`skill:<name>`, server/skills). Artifacts are set by the server's tool code only: a
 * model writes calls, and a tool's result text (a server's or a page's) is content, so neither can give a message an
 * origin.
 */
const ORIGIN_PREFIXES = ['mcp:', 'web:', 'web-search:', 'skill:'];
function toolOrigin(message: BaseMessage): string | undefined {
  const origin = (message as { artifact?: { origin?: unknown } }).artifact?.origin;
  return typeof origin === 'string' && ORIGIN_PREFIXES.some((prefix) => origin.startsWith(prefix)) ? origin : undefined;
}

function validProducer(value: unknown): Producer | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const p = value as Record<string, unknown>;
  if (p.type === 'person' || p.type === 'agent' || p.type === 'framework') return { type: p.type };
  if (p.type === 'member' && (typeof p.memberId === 'string' || p.memberId === null) && typeof p.name === 'string') {
    return { type: 'member', memberId: p.memberId, name: p.name };
  }
  return undefined;
}

/** The stored provenance when it is well-formed (only the server writes it; the check keeps the API shape exact). */
function storedProvenance(value: unknown): Provenance | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  const producer = validProducer(v.producer);
  if (typeof v.contentKind !== 'string' || !CONTENT_KINDS.has(v.contentKind) || !producer) return undefined;
  return { contentKind: v.contentKind as ContentKind, producer, ...(typeof v.about === 'string' ? { about: v.about } : {}) };
}

/**
 * What a message is and who produced it: the stored provenance, or — for messages checkpointed before provenance
 * was recorded — a derivation from the server meta they do carry (kind, author, memberName, from).
 */
export function provenanceOf(message: BaseMessage): Provenance {
  const meta = ensembleMeta(message);
  const stored = storedProvenance(meta?.provenance);
  if (stored) return stored;
  const kind = meta?.kind;
  // H3's compaction summary (and any later framework message) names its kind; whatever its message type, it is the framework's.
  if (kind === 'compaction') return { contentKind: 'compaction', producer: FRAMEWORK };
  const type = message.getType();
  if (type === 'ai') return kind === 'framework_note' ? frameworkNote() : { contentKind: 'assistant', producer: { type: 'agent' } };
  if (type === 'tool') {
    const origin = toolOrigin(message);
    return { contentKind: 'tool_result', producer: FRAMEWORK, ...(origin ? { origin } : {}) };
  }
  switch (kind) {
    case 'team_request': {
      if (meta?.author === 'person') return teamRequest(null);
      // Older request metadata names the sender (from) but not its member id.
      return { contentKind: 'team_request', producer: { type: 'member', memberId: null, name: str(meta?.from) ?? 'A member' } };
    }
    case 'receipt':
      return receipt(str(meta?.memberName) ?? 'A member');
    case 'clarification_answer':
      return clarificationAnswer();
    case 'mention':
      return mentionMessage();
    case 'delegated_task':
      // The parent agent wrote the task (launch.ts stores the same producer).
      return { contentKind: 'delegated_task', producer: { type: 'agent' } };
    default:
      // A chat message (author person) — and human messages from before any meta, which only the person's chat wrote.
      return personMessage();
  }
}

/**
 * Remove additional_kwargs.ensemble from messages a model or a tool produced (a message, a list, `{ messages }`, or
 * Commands carrying messages), in place: only the server may set provenance and the author the scripted model trusts.
 */
export function stripEnsembleMeta<T>(value: T): T {
  const visit = (v: unknown): void => {
    if (!v || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach(visit);
    if (isCommand(v)) return visit((v as { update?: unknown }).update);
    const kwargs = (v as { additional_kwargs?: Record<string, unknown> }).additional_kwargs;
    if (typeof (v as { getType?: unknown }).getType === 'function') {
      if (kwargs && 'ensemble' in kwargs) delete kwargs.ensemble;
      return;
    }
    const messages = (v as { messages?: unknown }).messages;
    if (messages) visit(messages);
  };
  visit(value);
  return value;
}
