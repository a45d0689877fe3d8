import 'server-only';
import type { CitationCheck, Receipt } from '@/lib/types/receipts';
import { LIMITS } from '@/lib/limits';

/** `[r2 calculator]`: a receipt id and a tool name (the names tools may have), in square brackets. */
const CITATION = /\[(r[1-9]\d{0,8}) ([A-Za-z0-9_-]{1,64})\]/g;

/**
 * The citations in a text, each checked against a run's receipts: resolved when a receipt with that id exists AND
 * was a call of that tool — evidence that the call happened, not that what the text claims about it is true.
 * Each distinct citation is listed once, in order of first appearance, at most LIMITS.receipts.citationsPerText
 * (a text that floods citations can't make an unbounded answer).
 */
export function checkCitations(text: string, receipts: readonly Receipt[]): CitationCheck[] {
  const tools = new Map(receipts.map((r) => [r.id, r.tool]));
  const seen = new Set<string>();
  const out: CitationCheck[] = [];
  for (const match of text.matchAll(CITATION)) {
    const [, id, tool] = match as unknown as [string, string, string];
    const key = `${id} ${tool}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ id, tool, resolved: tools.get(id) === tool });
    if (out.length >= LIMITS.receipts.citationsPerText) break;
  }
  return out;
}
