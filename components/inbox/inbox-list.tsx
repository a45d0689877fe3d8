'use client';

import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { answerApprovalsAction } from '@/app/(app)/inbox/actions';
import { resumeConversationAction, sendMessageAction } from '@/app/(app)/conversations/actions';
import { answerBatchItemAction } from '@/app/(app)/batches/actions';
import { respondToJobAction } from '@/app/(app)/teams/actions';
import { approvalRequest } from '@/components/teams/interrupt-response';
import type { AnswerBody } from '@/components/teams/job-answer-form';
import { Button } from '@/components/ui/button';
import { LoadError } from '@/components/ui/load-error';
import { Alert, PageHeader, Spinner } from '@/components/ui/misc';
import { actionData } from '@/lib/action-result';
import { newClientId } from '@/lib/idempotency/client-id';
import { refreshOnPush } from '@/lib/query/refresh-on-push';
import type { BulkAnswerOutcome, InboxItem } from '@/lib/types/inbox';
import { InboxEmpty } from './inbox-empty';
import { InboxItemCard, askerOf } from './inbox-item-card';
import { inboxKeyAction } from './inbox-keys';
import { InboxKeysDialog } from './inbox-keys-dialog';
import { inboxKeys, inboxListQuery } from './queries';

type Failure = Extract<BulkAnswerOutcome, { ok: false }> & { label: string };

/**
 * The Inbox page (ADR 056): every question and approval waiting for the person, oldest first, each answered in place
 * with the team card's own control; several approvals answered at once; j/k/a/d and ? from the keyboard. It follows
 * the inbox stream the header's count keeps open, so answered items leave (here or anywhere else) without a reload.
 */
export function InboxList() {
  const queryClient = useQueryClient();
  const query = useInfiniteQuery(inboxListQuery());
  const items = useMemo(() => {
    // Pages are keyset pages: an item answered between two reads can't repeat, but one page's re-read may overlap.
    const seen = new Set<string>();
    return (query.data?.pages ?? []).flatMap((p) => p.items).filter((i) => !seen.has(i.id) && (seen.add(i.id), true));
  }, [query.data]);
  const total = query.data?.pages[0]?.total ?? 0;

  // The focused item, and its place in the list when it was focused (where the focus goes if it leaves).
  const [focus, setFocus] = useState<{ id: string; index: number } | null>(null);
  const focusedId = focus?.id ?? null;
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [notes, setNotes] = useState<Record<string, string>>({});
  const [helpOpen, setHelpOpen] = useState(false);
  const [bulkBusy, setBulkBusy] = useState(false);
  const [failures, setFailures] = useState<Failure[]>([]);
  const [announcement, setAnnouncement] = useState('');
  const elements = useRef(new Map<string, HTMLLIElement>());
  // One key per item for answers given by key (a/d): a retry after a lost response is the same answer.
  const keyAnswers = useRef(new Map<string, string>());

  const refresh = useCallback(() => refreshOnPush(queryClient, { queryKey: inboxKeys.all }), [queryClient]);

  // An item that no longer waits (answered here or anywhere) leaves; the focus goes to the item now at its place.
  const ids = useMemo(() => new Set(items.map((i) => i.id)), [items]);
  const focusGone = focusedId !== null && !ids.has(focusedId);
  const focusedNow = focusGone ? (items[Math.min(focus!.index, items.length - 1)]?.id ?? null) : focusedId;
  useEffect(() => {
    if (!focusGone) return;
    const el = focusedNow ? elements.current.get(focusedNow) : null;
    (el ?? document.getElementById('inbox-heading'))?.focus();
  }, [focusGone, focusedNow]);

  const focusItem = useCallback(
    (index: number) => {
      const item = items[Math.max(0, Math.min(index, items.length - 1))];
      if (!item) return;
      setFocus({ id: item.id, index: items.indexOf(item) });
      elements.current.get(item.id)?.focus();
      elements.current.get(item.id)?.scrollIntoView({ block: 'nearest' });
    },
    [items],
  );

  const answer = useCallback(
    async (item: InboxItem, body: AnswerBody) => {
      const where = item.where;
      if (where.source === 'team') await actionData(() => respondToJobAction(where.teamId, where.jobId, body));
      else if (where.source === 'batch') await actionData(() => answerBatchItemAction(where.batchId, where.itemId, body));
      else if ('answer' in body) await actionData(() => sendMessageAction(where.conversationId, { text: body.answer, idempotencyKey: body.answerKey }));
      else await actionData(() => resumeConversationAction(where.conversationId, { value: body.response, idempotencyKey: body.answerKey }));
      setAnnouncement(`Answered: ${askerOf(item)}.`);
      refresh();
    },
    [refresh],
  );

  const answerByKey = useCallback(
    async (item: InboxItem, approved: boolean) => {
      let answerKey = keyAnswers.current.get(item.id);
      if (!answerKey) keyAnswers.current.set(item.id, (answerKey = newClientId()));
      const note = (notes[item.id] ?? '').trim();
      try {
        await answer(item, { response: note ? { approved, note } : { approved }, answerKey });
      } catch (err) {
        setAnnouncement(`Could not answer ${askerOf(item)}: ${err instanceof Error ? err.message : 'try again'}`);
      }
    },
    [answer, notes],
  );

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (helpOpen) return;
      const action = inboxKeyAction({ key: event.key, ctrlKey: event.ctrlKey, metaKey: event.metaKey, altKey: event.altKey, isComposing: event.isComposing, target: event.target });
      if (!action) return;
      event.preventDefault();
      const index = focusedNow ? items.findIndex((i) => i.id === focusedNow) : -1;
      if (action === 'help') return setHelpOpen(true);
      if (action === 'next') return focusItem(index + 1);
      if (action === 'previous') return focusItem(index <= 0 ? 0 : index - 1);
      const item = items[index];
      if (!item || !approvalRequest(item.waiting)) return setAnnouncement('Focus a tool call waiting for approval first (j, k).');
      void answerByKey(item, action === 'approve');
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [helpOpen, focusedNow, items, focusItem, answerByKey]);

  const approvals = items.filter((i) => approvalRequest(i.waiting));
  const chosen = approvals.filter((i) => selected.has(i.id));

  async function answerSelected(approved: boolean) {
    if (!chosen.length || bulkBusy) return;
    setBulkBusy(true);
    setFailures([]);
    try {
      const { outcomes } = await actionData(() => answerApprovalsAction({ ids: chosen.map((i) => i.id), decision: { approved }, bulkKey: newClientId() }));
      const byId = new Map(chosen.map((i) => [i.id, i]));
      const failed = outcomes.flatMap((o) => (o.ok ? [] : [{ ...o, label: byId.get(o.id) ? `${approvalRequest(byId.get(o.id)!.waiting)!.tool} for ${askerOf(byId.get(o.id)!)}` : o.id }]));
      // Answered elsewhere is what the person wanted anyway: said, not shown as a failure.
      setFailures(failed.filter((f) => f.code !== 'already_answered'));
      const done = outcomes.length - failed.length;
      const elsewhere = failed.length - failed.filter((f) => f.code !== 'already_answered').length;
      setAnnouncement(`${approved ? 'Approved' : 'Declined'} ${done} of ${outcomes.length}.${elsewhere ? ` ${elsewhere} had been answered elsewhere.` : ''}`);
      setSelected(new Set());
    } catch (err) {
      setFailures([{ id: '', ok: false, code: 'failed', message: err instanceof Error ? err.message : 'Sending failed; try again.', label: 'The bulk answer' }]);
    } finally {
      setBulkBusy(false);
      refresh();
    }
  }

  return (
    <div className="space-y-4">
      <PageHeader title={<span id="inbox-heading" tabIndex={-1}>Inbox</span>}>
        {/* Not at phone widths, where there is no keyboard to press them on (a keyboard's "?" still opens the list). */}
        <Button variant="secondary" size="sm" className="hidden sm:inline-flex" onClick={() => setHelpOpen(true)} aria-keyshortcuts="?">
          Keyboard shortcuts
        </Button>
      </PageHeader>
      <p role="status" aria-live="polite" className="sr-only">
        {announcement}
      </p>

      {query.isPending ? (
        <Spinner label="Loading your inbox…" />
      ) : query.isError && !query.data ? (
        <LoadError query={query}>Couldn’t load your inbox.</LoadError>
      ) : items.length === 0 ? (
        <InboxEmpty />
      ) : (
        <>
          {query.isError ? <LoadError query={query}>Couldn’t refresh your inbox.</LoadError> : null}
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            {total} waiting, oldest first.
            <span className="hidden sm:inline">
              {' '}
              Press <kbd className="font-mono">?</kbd> for keyboard shortcuts.
            </span>
          </p>
          {approvals.length ? (
            <div role="group" aria-label="Bulk answer" className="flex flex-wrap items-center gap-2 rounded-lg border border-zinc-200 p-2 dark:border-zinc-800">
              <label className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  className="size-5"
                  checked={chosen.length === approvals.length}
                  onChange={(e) => setSelected(e.target.checked ? new Set(approvals.map((i) => i.id)) : new Set())}
                />
                Select all approvals
              </label>
              <span className="text-sm text-zinc-600 dark:text-zinc-400">{chosen.length} selected</span>
              <Button size="sm" onClick={() => void answerSelected(true)} aria-disabled={!chosen.length || bulkBusy || undefined}>
                Approve selected
              </Button>
              <Button size="sm" variant="secondary" onClick={() => void answerSelected(false)} aria-disabled={!chosen.length || bulkBusy || undefined}>
                Decline selected
              </Button>
            </div>
          ) : null}
          {failures.length ? (
            <Alert>
              <span>Not answered:</span>
              <ul className="mt-1 list-disc pl-5">
                {failures.map((f) => (
                  <li key={f.id || f.label} className="break-words">
                    {f.label}: {f.message}
                  </li>
                ))}
              </ul>
            </Alert>
          ) : null}
          <ul aria-label="Waiting for you" className="space-y-3">
            {items.map((item, index) => (
              <InboxItemCard
                key={item.id}
                item={item}
                focused={item.id === focusedNow}
                selected={selected.has(item.id)}
                onSelect={(id, on) => setSelected((s) => (on ? new Set(s).add(id) : new Set(Array.from(s).filter((x) => x !== id))))}
                note={notes[item.id] ?? ''}
                onNoteChange={(id, note) => setNotes((n) => ({ ...n, [id]: note }))}
                onAnswer={answer}
                onFocusItem={(id) => setFocus({ id, index })}
                itemRef={(el) => {
                  if (el) elements.current.set(item.id, el);
                  else elements.current.delete(item.id);
                }}
              />
            ))}
          </ul>
          {query.hasNextPage ? (
            <Button variant="secondary" onClick={() => void query.fetchNextPage()} aria-disabled={query.isFetchingNextPage || undefined}>
              {query.isFetchingNextPage ? 'Loading…' : 'Show more'}
            </Button>
          ) : null}
        </>
      )}
      <InboxKeysDialog open={helpOpen} onClose={() => setHelpOpen(false)} />
    </div>
  );
}
