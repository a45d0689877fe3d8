'use client';

import Link from 'next/link';
import type { RefCallback } from 'react';
import { shortBatchId } from '@/components/batches/batch-link';
import { approvalRequest } from '@/components/teams/interrupt-response';
import { JobAnswerForm, type AnswerBody } from '@/components/teams/job-answer-form';
import { cn } from '@/components/ui/cn';
import { Time } from '@/components/ui/time';
import type { InboxItem } from '@/lib/types/inbox';

type Props = {
  item: InboxItem;
  focused: boolean;
  selected: boolean;
  onSelect: (id: string, selected: boolean) => void;
  note: string;
  onNoteChange: (id: string, note: string) => void;
  onAnswer: (item: InboxItem, body: AnswerBody) => Promise<void>;
  onFocusItem: (id: string) => void;
  itemRef: RefCallback<HTMLLIElement>;
};

/** Who asks, as the answer control's subject and the card's context line. Names are shown as text, never HTML. */
export const askerOf = (item: InboxItem): string => {
  const where = item.where;
  if (where.source === 'chat') return where.agentName || 'The agent';
  if (where.source === 'batch') return `${where.targetName || 'The agent'}, item ${where.index + 1}`;
  if (where.memberName) return `@${where.memberName}`;
  return where.memberId === null ? where.agentName || 'The chat’s agent' : 'A member';
};

/** How many of a batch item's fields the card shows (the batch page shows them all). */
const FIELDS_SHOWN = 4;
const FIELD_CHARS = 80;
const cutField = (text: string) => {
  const all = [...text];
  return all.length > FIELD_CHARS ? `${all.slice(0, FIELD_CHARS).join('')}…` : text;
};

/**
 * Where the card's link goes. Several cards share the page, so each link's accessible name ends with what it opens
 * (`named`, visually hidden: the visible words stay short): the chat's agent and title, the team's name, the batch's
 * short id as BatchLink names it.
 */
const homeOf = (where: InboxItem['where']): { href: string; label: string; named: string } =>
  where.source === 'chat'
    ? {
        href: `/conversations/${encodeURIComponent(where.conversationId)}`,
        label: 'Open the chat',
        named: ` with ${where.agentName || 'a deleted agent'}${where.title ? ` · ${cutField(where.title)}` : ''}`,
      }
    : where.source === 'batch'
      ? { href: `/batches/${encodeURIComponent(where.batchId)}`, label: 'Open the batch', named: ` ${shortBatchId(where.batchId)}` }
      : // Filtered to what needs input: the feed opens on its newest 30 requests, which may not reach the one asking.
        { href: `/teams/${encodeURIComponent(where.teamId)}?status=needs_input`, label: 'Open the team', named: ` ${where.teamName}` };

/**
 * One thing waiting for the person: where it waits (a chat, a team member's request, a batch's item with its fields),
 * since when, and the answer
 * control in place — the team card's own (JobAnswerForm: Approve / Decline for a tool call, a text answer for a
 * question, JSON for any other interrupt). An approval can be selected for the bulk answer.
 */
export function InboxItemCard({ item, focused, selected, onSelect, note, onNoteChange, onAnswer, onFocusItem, itemRef }: Props) {
  const approval = approvalRequest(item.waiting);
  const where = item.where;
  const headingId = `inbox-${item.id.replace(':', '-')}`;
  const home = homeOf(where);
  return (
    <li
      ref={itemRef}
      tabIndex={-1}
      aria-labelledby={headingId}
      data-focused={focused || undefined}
      onFocus={() => onFocusItem(item.id)}
      className={cn(
        'min-w-0 space-y-3 rounded-lg border bg-white p-3 outline-none dark:bg-zinc-900',
        focused ? 'border-indigo-500 ring-2 ring-indigo-500/40' : 'border-zinc-200 dark:border-zinc-800',
      )}
    >
      <div className="flex min-w-0 flex-wrap items-start gap-3">
        {approval ? (
          <input
            type="checkbox"
            className="mt-1 size-5 shrink-0"
            checked={selected}
            onChange={(e) => onSelect(item.id, e.target.checked)}
            aria-label={`Select ${approval.tool} for ${askerOf(item)}`}
          />
        ) : null}
        <div className="min-w-0 flex-1">
          <h2 id={headingId} className="text-sm font-semibold break-words text-zinc-900 dark:text-zinc-50">
            {where.source === 'chat' ? (
              <>
                Chat with {where.agentName || 'a deleted agent'}
                {where.title ? <span className="font-normal text-zinc-600 dark:text-zinc-400"> · {where.title}</span> : null}
              </>
            ) : where.source === 'batch' ? (
              <>
                Item {where.index + 1} of a batch run as {where.targetName || 'a deleted agent'}
                {where.teamName ? <span className="font-normal text-zinc-600 dark:text-zinc-400"> · team {where.teamName}</span> : null}
              </>
            ) : (
              <>
                {where.memberId === null ? `${askerOf(item)}, in your chat, replying to a result from team ` : `${askerOf(item)} in team `}
                {where.teamName}
              </>
            )}
          </h2>
          {where.source === 'batch' && Object.keys(where.fields).length ? (
            <dl aria-label={`Fields of item ${where.index + 1}`} className="mt-1 grid grid-cols-[fit-content(40%)_minmax(0,1fr)] gap-x-3 text-xs">
              {Object.entries(where.fields)
                .slice(0, FIELDS_SHOWN)
                .map(([name, value]) => (
                  <div key={name} className="contents">
                    <dt className="min-w-0 font-mono wrap-anywhere text-zinc-500 dark:text-zinc-400">{name}</dt>
                    <dd className="min-w-0 break-words text-zinc-800 dark:text-zinc-200">{cutField(value)}</dd>
                  </div>
                ))}
            </dl>
          ) : null}
          <p className="text-xs text-zinc-600 dark:text-zinc-400">
            {approval ? 'Approval' : item.waiting.type === 'clarification' ? 'Question' : 'Response'} waiting since{' '}
            <Time iso={item.since} format="when" /> ·{' '}
            <Link className="underline underline-offset-2" href={home.href}>
              {home.label}
              <span className="sr-only">{home.named}</span>
            </Link>
          </p>
        </div>
      </div>
      <JobAnswerForm
        jobId={item.id}
        waiting={item.waiting}
        member={askerOf(item)}
        value={note}
        onChange={onNoteChange}
        onSubmit={(_, body) => onAnswer(item, body)}
        headingLevel={3}
      />
    </li>
  );
}
