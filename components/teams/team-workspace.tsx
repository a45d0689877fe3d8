'use client';

import { useCallback, useMemo, useRef, useState } from 'react';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Alert, Badge, Spinner } from '@/components/ui/misc';
import { LoadError } from '@/components/ui/load-error';
import { Button } from '@/components/ui/button';
import { actionData } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import { feedJobs } from './activity-cache';
import { TEAM_STATUS_BADGE, isLongText } from './feed';
import type { ApiMember } from '@/lib/types/team';
import { ActivityFeed, type SharedCardProps } from './activity-feed';
import { FeedFilterBar, useFeedFilter } from './feed-filter';
import { isFiltered } from '@/lib/feed-filter';
import type { AnswerBody } from './job-answer-form';
import { LiveStatus } from '@/components/ui/live-status';
import { ManageMenu } from './manage-menu';
import { MemberSidebar } from './member-sidebar';
import { MentionComposer, emptyDraft, type ComposerDraft } from './mention-composer';
import { StatePanel } from './state-panel';
import { FilesPanelLazy } from '@/components/files/files-panel-lazy';
import { TeamBudgetMeter } from './team-budget-meter';
import { TeamBudgetNotice } from './team-budget-notice';
import { activityQuery, teamQuery, waitReasonsQuery } from './queries';
import type { RetryTarget } from './job-retry-controls';
import { cancelJobAction, respondToJobAction, retryJobAction, sendTeamRequestAction } from '@/app/(app)/teams/actions';
import { useTeamEvents } from './use-team-events';
import { NotificationToggle } from './notification-toggle';
import { useTeamNotifications } from './notifications';
import { TeamCapacityNotice } from './team-capacity-notice';
import { TeamSettingsDialog } from './team-dialogs-lazy';
import { tabTitle, useTabTitle } from './use-tab-title';
import { ButtonLink } from '@/components/ui/button-link';
import { cn } from '@/components/ui/cn';
import { textLink } from '@/components/ui/button-variants';
import { TeamNotFound } from './team-not-found';

const toggleKey = (id: string) => (prev: Readonly<Record<string, boolean>>) => ({ ...prev, [id]: !prev[id] });

/**
 * The team page: roster, live activity feed and the @mention composer. Everything the reader does — the draft,
 * open details, expanded texts, typed answers — is state here, keyed by job id, never part of fetched data.
 * The server renders it with its first data (page.tsx); push keeps the cached team, feed and state current.
 */
export function TeamWorkspace({ teamId }: { teamId: string }) {
  const team = useQuery(teamQuery(teamId));
  const waits = useQuery(waitReasonsQuery(teamId));
  const filter = useFeedFilter();
  const activity = useInfiniteQuery(activityQuery(teamId, filter));
  const live = useTeamEvents(teamId, filter);
  const refreshActivity = live.refresh;

  const [draft, setDraft] = useState<ComposerDraft>(emptyDraft);
  const [openDetails, setOpenDetails] = useState<Record<string, boolean>>({});
  const [expandedText, setExpandedText] = useState<Record<string, boolean>>({});
  const [answers, setAnswers] = useState<Record<string, string>>({});
  const [goalExpanded, setGoalExpanded] = useState(false);
  const [editing, setEditing] = useState(false);
  // A send refused for the team's request limit: the capacity notice (with its clone offer) shows at once.
  const [capacityRefused, setCapacityRefused] = useState(false);
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  const filesScope = useMemo(() => ({ kind: 'team' as const, id: teamId }), [teamId]);

  const refetchTeam = team.refetch;
  const members = useMemo(() => team.data?.members ?? [], [team.data]);
  const membersById = useMemo(() => new Map<string, ApiMember>(members.map((m) => [m.id, m])), [members]);
  const jobs = useMemo(() => feedJobs(activity.data), [activity.data]);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = activity;
  useTabTitle(team.data ? tabTitle(team.data.name, team.data.waitingJobs) : null);
  const notifications = useTeamNotifications(jobs, membersById, team.data?.name ?? '');
  const loadOlder = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  const refreshAll = useCallback(() => {
    refreshActivity();
    void refetchTeam();
  }, [refreshActivity, refetchTeam]);

  const send = useCallback(
    async (d: ComposerDraft, draftKey: string, attachments: string[]) => {
      const input = { memberIds: d.memberIds, text: d.text, draftKey, ...(attachments.length > 0 ? { attachments } : {}) };
      try {
        await actionData(() => sendTeamRequestAction(teamId, input));
      } catch (e) {
        if (e instanceof ApiError && e.code === 'team_capacity') setCapacityRefused(true);
        throw e;
      }
      refreshActivity();
    },
    [teamId, refreshActivity],
  );
  const retry = useCallback(
    async ({ jobId, memberId, requestId }: RetryTarget) => {
      await actionData(() => retryJobAction(teamId, jobId, memberId ? { requestId, memberId } : { requestId }));
      refreshActivity();
    },
    [teamId, refreshActivity],
  );
  const cancel = useCallback(
    async (jobId: string) => {
      await actionData(() => cancelJobAction(teamId, jobId));
      refreshActivity();
    },
    [teamId, refreshActivity],
  );
  const answer = useCallback(
    async (jobId: string, body: AnswerBody) => {
      const sent = 'answer' in body ? body.answer : null;
      await actionData(() => respondToJobAction(teamId, jobId, body));
      // Keep the typed text unless it is still exactly what was answered.
      setAnswers((prev) => {
        if (sent !== null && prev[jobId] !== sent) return prev;
        const next = { ...prev };
        delete next[jobId];
        return next;
      });
      refreshActivity();
    },
    [teamId, refreshActivity],
  );
  const onAnswerChange = useCallback((jobId: string, value: string) => setAnswers((p) => ({ ...p, [jobId]: value })), []);
  const onToggleDetails = useCallback((jobId: string) => setOpenDetails(toggleKey(jobId)), []);
  const onToggleText = useCallback((jobId: string) => setExpandedText(toggleKey(jobId)), []);
  const mention = useCallback((member: ApiMember) => {
    setDraft((d) => (d.memberIds.includes(member.id) ? d : { ...d, memberIds: [...d.memberIds, member.id] }));
    textareaRef.current?.focus();
  }, []);

  if (team.isPending) return <Spinner label="Loading team…" />;
  if (team.isError && !team.data) {
    const missing = team.error instanceof ApiError && team.error.status === 404;
    return missing ? (
      <TeamNotFound />
    ) : (
      <LoadError query={team}>Couldn’t load this team.</LoadError>
    );
  }

  const t = team.data;
  const status = TEAM_STATUS_BADGE[t.status];
  const longGoal = isLongText(t.goal, 280, 3);
  const cardProps: SharedCardProps = { members: membersById, onToggleDetails, onToggleText, onAnswerChange, onAnswer: answer, onCancel: cancel, onRetry: retry };

  return (
    <div className="w-full space-y-4">
      <header className="space-y-2">
        <div className="flex flex-wrap items-center gap-2">
          <h1 className="min-w-0 break-words text-2xl font-semibold text-zinc-900 dark:text-zinc-50">{t.name}</h1>
          <Button variant="ghost" size="sm" aria-label="Edit team name and goal" onClick={() => setEditing(true)}>
            Edit
          </Button>
          {t.status !== 'ready' ? <Badge tone={status.tone}>{status.label}</Badge> : null}
          <div className="ml-auto flex flex-wrap items-center gap-3">
            <TeamBudgetMeter team={t} onChanged={refreshAll} />
            <NotificationToggle notifications={notifications} />
            <ButtonLink href={`/teams/${encodeURIComponent(t.id)}/runs`} variant="secondary" size="sm">
              Runs
            </ButtonLink>
            <ManageMenu team={t} onRefresh={refreshAll} onReconnected={refreshAll} />
          </div>
        </div>
        <div>
          <p id="team-goal" className={`whitespace-pre-wrap break-words text-sm text-zinc-600 dark:text-zinc-400 ${longGoal && !goalExpanded ? 'line-clamp-3' : ''}`}>
            <span className="sr-only">Goal: </span>
            {t.goal}
          </p>
          {longGoal ? (
            <button
              type="button"
              className={cn(textLink, 'text-xs')}
              aria-expanded={goalExpanded}
              aria-controls="team-goal"
              onClick={() => setGoalExpanded((v) => !v)}
            >
              {goalExpanded ? 'Show less' : 'Show full goal'}
            </button>
          ) : null}
        </div>
        {editing ? <TeamSettingsDialog team={t} open onClose={() => setEditing(false)} onSaved={refreshAll} /> : null}
        {t.status === 'creating' ? (
          <Alert tone="info">This team is still being set up. If it stays this way, choose Manage → Reconnect.</Alert>
        ) : null}
      </header>

      <div className="flex flex-col gap-4 md:flex-row md:items-start">
        <MemberSidebar members={members} recipientIds={draft.memberIds} onMention={mention} />
        <div className="min-w-0 flex-1 space-y-4">
          <TeamBudgetNotice team={t} onChanged={refreshAll} />
          <FeedFilterBar filter={filter} members={members} matching={activity.data?.pages[0]?.totalJobs ?? null} />
          {activity.data ? (
            <ActivityFeed
              jobs={jobs}
              totalJobs={activity.data.pages[0]?.totalJobs ?? jobs.length}
              hasOlder={hasNextPage}
              loadingOlder={isFetchingNextPage}
              onLoadOlder={loadOlder}
              openDetails={openDetails}
              expandedText={expandedText}
              answers={answers}
              waitReasons={waits.data?.reasons}
              filtered={isFiltered(filter)}
              cardProps={cardProps}
            />
          ) : activity.isError ? (
            <LoadError query={activity}>Couldn’t load the activity.</LoadError>
          ) : (
            <Spinner label="Loading activity…" />
          )}
          <TeamCapacityNotice team={t} refused={capacityRefused} />
          <section aria-label="Composer" className="rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900">
            <MentionComposer teamId={teamId} members={members} draft={draft} setDraft={setDraft} onSend={send} textareaRef={textareaRef} />
          </section>
          <StatePanel teamId={teamId} />
          <FilesPanelLazy scope={filesScope} />
          <footer className="flex justify-end border-t border-zinc-200 pt-2 dark:border-zinc-800">
            <LiveStatus connection={live.connection} />
          </footer>
        </div>
      </div>
    </div>
  );
}
