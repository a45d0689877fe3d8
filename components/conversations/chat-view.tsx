'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { RunStepsDisclosure } from '@/components/runs/run-steps-disclosure';
import { Alert, Badge, Spinner } from '@/components/ui/misc';
import { Button } from '@/components/ui/button';
import { actionData } from '@/lib/action-result';
import { ApprovalPrompt } from '@/components/approvals/approval-prompt';
import type { ApprovalValue } from '@/components/approvals/approval';
import { agentQuery } from '@/components/agents/queries';
import { conversationKeys, conversationStateQuery } from './queries';
import { BatchItemNotice } from './batch-item-notice';
import { Composer } from './composer';
import { DeleteConversationButton, TeamMemberNote } from './delete-conversation-button';
import { FilesPanelLazy } from '@/components/files/files-panel-lazy';
import { cancelRunAction, resumeConversationAction, sendMentionsAction, sendMessageAction } from '@/app/(app)/conversations/actions';
import { BUSY_MESSAGE, isPermanentError, loadErrorMessage, sendErrorMessage } from './errors';
import { newClientId } from '@/lib/idempotency/client-id';
import { MessageList } from './message-list';
import { LiveStatus } from '@/components/ui/live-status';
import { visibleEcho, type PendingEcho } from './pending-echo';
import { isRunActive, laterRun, runView } from './run-state';
import { LiveOutputBox } from '@/components/live-output/live-output-box';
import { runOutputKey } from '@/components/live-output/store';
import { focusIsLost } from '@/components/ui/focus-return';
import { RunStatus } from './run-status';
import { TeamRequestNotice } from './team-request-notice';
import { timelineSignature } from './timeline';
import type { ConversationDetail, Run } from './types';
import { useConversationEvents } from './use-conversation-events';
import { useStickToBottom } from './use-stick-to-bottom';

const APPROVAL_FIRST = 'Approve or decline the tool call above first.';
const TEAM_FIRST = 'A team request waits on this conversation: answer it on the team’s page first.';
// Sending to team members writes into this thread; while the agent waits on an interrupt that must not happen.
const ANSWER_FIRST = 'The agent is waiting for your answer. Answer it first, then send to team members.';

/** The chat screen for one conversation: header, history, run state, approval prompt and composer. */
export function ChatView({ conversationId }: { conversationId: string }) {
  const queryClient = useQueryClient();
  const router = useRouter();
  const queryKey = useMemo(() => conversationKeys.state(conversationId), [conversationId]);
  // Changes arrive by push (runs started, stepping, finished; @mention results are receipt runs); only while the
  // stream is down is the conversation re-read on a timer.
  const live = useConversationEvents(conversationId);
  const query = useQuery({
    ...conversationStateQuery(conversationId),
    ...live.poll,
    retry: (count, err) => !isPermanentError(err) && count < 2,
  });
  const data = query.data;
  const run = data?.run ?? null;
  const conversation = data?.conversation;

  const [echo, setEcho] = useState<PendingEcho | null>(null);
  const [filesOpen, setFilesOpen] = useState(false);
  const resumeKeys = useRef(new Map<string, string>());
  const composerArea = useRef<HTMLDivElement>(null);
  const shownEcho = data ? visibleEcho(echo, data.messages, run) : null;
  const { anchor: listRef, scrollToEnd } = useStickToBottom<HTMLDivElement>(`${data ? timelineSignature(data.messages) : ''}|${shownEcho ? 'echo' : ''}|${run?.status ?? ''}`);

  const agentId = conversation?.agentId ?? null;
  const agent = useQuery({
    ...agentQuery(agentId ?? ''),
    // Only needed for the model when no run has named it yet.
    enabled: agentId !== null && data !== undefined && run === null,
    retry: false,
  });
  const model = run?.model ?? agent.data?.model ?? null;

  /** Put a run the server just returned into the cache, then re-read the conversation once. */
  const adoptRun = useCallback(
    async (next: Run) => {
      // Let a read already on the wire finish rather than start a second request beside it; its answer may
      // predate the POST, so the run shown is whichever reading is further along.
      if (queryClient.isFetching({ queryKey, exact: true }) > 0) {
        await queryClient.refetchQueries({ queryKey, exact: true }, { cancelRefetch: false });
      }
      queryClient.setQueryData<ConversationDetail>(queryKey, (old) => (old ? { ...old, run: laterRun(old.run, next) } : old));
      // A read that started after the POST answered is already fresh: reuse it instead of starting another.
      void queryClient.invalidateQueries({ queryKey, exact: true }, { cancelRefetch: false });
      void queryClient.invalidateQueries({ queryKey: conversationKeys.list() });
    },
    [queryClient, queryKey],
  );

  const send = useCallback(
    async (text: string, idempotencyKey: string, attachments: string[]) => {
      const input = attachments.length > 0 ? { text, idempotencyKey, attachments } : { text, idempotencyKey };
      const { run: started } = await actionData(() => sendMessageAction(conversationId, input));
      const baseCount = queryClient.getQueryData<ConversationDetail>(queryKey)?.messages.length ?? 0;
      setEcho({ text, runId: started.id, baseCount });
      scrollToEnd();
      await adoptRun(started);
    },
    [conversationId, adoptRun, scrollToEnd, queryClient, queryKey],
  );

  /** Queue the @mention requests, then re-read the thread, which now holds the message and the framework note. */
  const sendToMembers = useCallback(
    async (text: string, memberIds: string[], messageKey: string) => {
      const { jobs } = await actionData(() => sendMentionsAction(conversationId, { memberIds, text, messageKey }));
      scrollToEnd();
      // As in adoptRun: a read already on the wire may predate the POST, so let it land, then read again.
      if (queryClient.isFetching({ queryKey, exact: true }) > 0) {
        await queryClient.refetchQueries({ queryKey, exact: true }, { cancelRefetch: false });
      }
      await queryClient.invalidateQueries({ queryKey, exact: true }, { cancelRefetch: false });
      void queryClient.invalidateQueries({ queryKey: conversationKeys.list() });
      return jobs;
    },
    [conversationId, queryClient, queryKey, scrollToEnd],
  );

  const cancel = useCallback(async () => {
    if (!run) return;
    const { run: cancelled } = await actionData(() => cancelRunAction(run.id));
    await adoptRun(cancelled);
  }, [run, adoptRun]);

  const answerApproval = useCallback(
    async (value: ApprovalValue) => {
      if (!run) return;
      // One key per interrupt: a retried answer (even a different button after a lost response) is the same answer.
      let key = resumeKeys.current.get(run.id);
      if (!key) {
        key = newClientId();
        resumeKeys.current.set(run.id, key);
      }
      const { run: resumed } = await actionData(() => resumeConversationAction(conversationId, { value, idempotencyKey: key }));
      await adoptRun(resumed);
    },
    [run, conversationId, adoptRun],
  );

  // When the approval prompt goes (answered here or elsewhere) it takes the focused button with it: the composer takes
  // the focus (the run's status is announced by its own live region), never the page's <body>. Checked after the
  // render that removed it, whenever that comes.
  const approvalShown = runView(run).kind === 'approval' && !data?.teamRequest && !data?.batch;
  const hadApproval = useRef(approvalShown);
  useEffect(() => {
    if (hadApproval.current && !approvalShown && focusIsLost()) composerArea.current?.querySelector('textarea')?.focus();
    hadApproval.current = approvalShown;
  }, [approvalShown]);

  if (query.isPending) {
    return (
      <div className="py-8">
        <Spinner label="Loading conversation…" />
      </div>
    );
  }

  if (query.isError && !data) {
    const notFound = isPermanentError(query.error);
    return (
      <div className="space-y-4 py-4">
        <h1 className="text-2xl font-semibold">{notFound ? 'Conversation unavailable' : 'Could not load the conversation'}</h1>
        <Alert
          action={
            notFound ? undefined : (
              <Button variant="secondary" size="sm" onClick={() => void query.refetch()}>
                Retry
              </Button>
            )
          }
        >
          {loadErrorMessage(query.error, 'The conversation')}
        </Alert>
        <Link href="/conversations" className="text-sm text-indigo-700 underline dark:text-indigo-300">
          Back to conversations
        </Link>
      </div>
    );
  }

  if (!data || !conversation) return null;

  const view = runView(run, { batchItem: Boolean(data.batch) });
  // A team request's question or approval is answered on the team's page only (the server refuses it here).
  const teamRequest = data.teamRequest ?? null;
  const busyMessage = isRunActive(run) ? BUSY_MESSAGE : teamRequest ? TEAM_FIRST : view.kind === 'approval' ? APPROVAL_FIRST : null;
  const mentionBusyMessage = busyMessage ?? (run?.status === 'interrupted' ? ANSWER_FIRST : null);

  return (
    <div className="flex min-w-0 flex-col gap-4">
      <header className="space-y-2 border-b border-zinc-200 pb-3 dark:border-zinc-800">
        <Link href="/conversations" className="text-sm text-indigo-700 hover:underline dark:text-indigo-300">
          ← All conversations
        </Link>
        <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
          <h1 className="min-w-0 text-2xl font-semibold break-words text-zinc-900 dark:text-zinc-50">{conversation.agentName}</h1>
          {model ? (
            <Badge tone="info" className="max-w-full truncate font-mono" title={`Model: ${model}`}>
              <span className="sr-only">Model: </span>
              {model}
            </Badge>
          ) : null}
          {agentId ? (
            <Link
              href={`/agents/${encodeURIComponent(agentId)}/edit`}
              className="text-sm text-indigo-700 hover:underline dark:text-indigo-300"
              aria-label={`Edit agent ${conversation.agentName}`}
            >
              Edit agent
            </Link>
          ) : (
            <Badge tone="warning">Agent deleted</Badge>
          )}
          <div className="ml-auto flex items-center gap-2">
            <LiveStatus connection={live.connection} />
            <Button variant="secondary" size="sm" aria-expanded={filesOpen} aria-controls="chat-files" onClick={() => setFilesOpen((v) => !v)}>
              Files
            </Button>
            {/* A member's conversation can be deleted only once its team is (the server refuses it before): the team named instead. */}
            {data.team ? (
              <TeamMemberNote team={data.team} />
            ) : (
              <DeleteConversationButton conversation={conversation} afterDelete={() => router.push('/conversations')} />
            )}
          </div>
        </div>
        {/* The chat's files, read only once opened; the empty box keeps the toggle's aria-controls pointing somewhere. */}
        <div id="chat-files" hidden={!filesOpen}>
          {filesOpen ? <FilesPanelLazy scope={{ kind: 'conversation', id: conversationId }} /> : null}
        </div>
        {conversation.title ? (
          <p className="text-sm break-words text-zinc-600 [overflow-wrap:anywhere] dark:text-zinc-400">{conversation.title}</p>
        ) : null}
      </header>

      <section aria-labelledby="chat-history-heading" className="min-w-0">
        <h2 id="chat-history-heading" className="sr-only">
          Conversation history
        </h2>
        {/* Named without the word "message", so the composer is the one control labelled "Message". */}
        <div ref={listRef} role="log" aria-labelledby="chat-history-heading" className="min-w-0">
          <MessageList
            messages={data.messages}
            agentName={conversation.agentName}
            echo={shownEcho}
            approvalTool={view.kind === 'approval' ? view.interrupt.tool : null}
            approvalMcp={view.kind === 'approval' ? (view.interrupt.mcp ?? null) : null}
          />
        </div>
        {/* An approval's resume run starts no message of its own: its steps are offered here. */}
        {run && run.kind === 'resume' && !data.messages.some((m) => m.meta?.runId === run.id) ? (
          <RunStepsDisclosure key={run.id} runId={run.id} label="Steps after your answer" heading="Steps after your answer" className="mt-3" />
        ) : null}
      </section>

      {query.isError ? (
        <Alert
          action={
            <Button variant="secondary" size="sm" onClick={() => void query.refetch()}>
              Retry
            </Button>
          }
        >
          {`Could not refresh the conversation: ${loadErrorMessage(query.error, 'The conversation')}`}
        </Alert>
      ) : null}

      {/* What the agent is writing in this run (streaming providers, a paced scripted model; ADR 031). */}
      {view.kind === 'active' && run ? <LiveOutputBox outputKey={runOutputKey(run.id)} author={conversation.agentName} className="" /> : null}
      <RunStatus view={view} onCancel={cancel} />

      {teamRequest ? <TeamRequestNotice request={teamRequest} agentName={conversation.agentName} /> : null}

      {view.kind === 'approval' && run && !teamRequest && !data.batch ? (
        <ApprovalPrompt key={run.id} interrupt={view.interrupt} onAnswer={answerApproval} errorMessage={sendErrorMessage} />
      ) : null}

      {view.kind === 'clarification' && !teamRequest ? (
        <section
          aria-labelledby="clarification-heading"
          className="rounded-lg border border-blue-300 bg-blue-50 p-3 text-sm dark:border-blue-800 dark:bg-blue-950/40"
        >
          <h2 id="clarification-heading" className="font-semibold text-blue-900 dark:text-blue-100">
            {conversation.agentName} asks
          </h2>
          <p className="mt-1 text-base whitespace-pre-wrap break-words text-blue-950 [overflow-wrap:anywhere] dark:text-blue-50">
            {view.interrupt.question}
          </p>
        </section>
      ) : null}

      <div ref={composerArea} className="sticky bottom-0 -mx-1 border-t border-zinc-200 bg-zinc-50/95 px-1 pt-3 pb-3 backdrop-blur dark:border-zinc-800 dark:bg-zinc-950/95">
        {data.batch ? (
          <BatchItemNotice batchId={data.batch.id} waiting={view.kind === 'approval' || view.kind === 'clarification'} />
        ) : agentId ? (
          <Composer
            onSend={send}
            busyMessage={busyMessage}
            context={view.kind === 'clarification' && !teamRequest ? 'Your message answers the question above.' : null}
            mentions={{ conversationId, send: sendToMembers, busyMessage: mentionBusyMessage }}
          />
        ) : (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            The agent of this conversation was deleted, so it cannot reply. The history stays readable.
          </p>
        )}
      </div>
    </div>
  );
}
