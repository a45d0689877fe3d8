import 'server-only';
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import { Command } from '@langchain/langgraph';
import { eq, sql } from 'drizzle-orm';
import { schema, writeTx } from '@/server/db';
import { isRetryableConflict } from '@/server/db/errors';
import { preparedPerConnection } from '@/server/db/prepared';
import type { Agent, Run } from '@/server/db/schema';
import { recordAssembly } from './assembly/record';
import { agentAsRecorded } from './assembly/recorded-setup';
import { buildAgentGraph, recursionLimitFor, type AgentGraph } from './graph';
import { humanMessageId, type EnsembleMessageMeta } from './messages';
import { activeRuns, runsSuspended } from './run-events';
import { discardJournal } from './checkpoint/step-journal';
import { keepFinalMessages } from './final-state';
import { recordRunStarted } from './observe/run-lifecycle';
import { finishRun, markRunning, type ResumeInput, type StartInput } from './run-store';
import { ScriptedChatModel } from './scripted-model';
import { isSuspension } from './suspend';
import { armTimeLimit, isTimeCap, runTimeLimitMinutes, TIME_CAPPED_REASON } from './run-time-limit';
import { outcomeOf, threadConfig } from './thread';
import { runSetupFor } from './run-setup';
import { missingMcpServersOf } from './tools/unavailable';
import { NodeWork, type RunContext } from './run-types';

/**
 * How to drive the graph: 'input' sends the run's stored input (a human message or a resume Command);
 * 'continue' picks a thread up from its last checkpoint after a restart (null input).
 */
export type ExecutionMode = 'input' | 'continue';

/**
 * Start executing a run in the background of this process (once: a run already executing is left alone).
 * During shutdown nothing starts: the row stays pending and the next start's recovery executes it.
 */
export function launchRun(runId: string, mode: ExecutionMode = 'input'): void {
  const active = activeRuns();
  if (active.has(runId) || runsSuspended()) return;
  const controller = new AbortController();
  // Start from an empty LangChain context. A launch can happen in a callback scheduled inside another run's tool
  // call (send_member wakes the scheduler); LangGraph would take that ambient config for a parent graph and file
  // this run's checkpoints under the tool's subgraph namespace, out of sight of the conversation's own thread.
  const promise = AsyncLocalStorageProviderSingleton.getInstance()
    .run(undefined, () => executeRun(runId, controller, mode))
    .catch((err) => console.error(`[runs] run ${runId} failed outside the graph`, err))
    .finally(() => active.delete(runId));
  active.set(runId, { controller, promise });
}

/** The agent of a run's conversation (undefined once deleted), in one prepared statement per connection. */
const conversationAgent = preparedPerConnection((db) =>
  db
    .select()
    .from(schema.agents)
    .where(eq(schema.agents.id, sql`(select ${schema.conversations.agentId} from ${schema.conversations} where ${schema.conversations.id} = ${sql.placeholder('id')})`))
    .prepare(),
);

async function loadAgent(conversationId: string): Promise<Agent | undefined> {
  return (await conversationAgent().execute({ id: conversationId }))[0];
}

/** The server-owned context tools read; caller-supplied extras can't override the identity fields. */
export function runContextFor(run: Run, agentId: string | null): RunContext {
  const extra = (run.input as { context?: Record<string, unknown> }).context ?? {};
  return { ...extra, ownerId: run.ownerId, conversationId: run.conversationId, runId: run.id, agentId };
}

/** The human message a start run adds, with a deterministic id so later code can find its checkpoint. */
export function runHumanMessage(run: Run): HumanMessage {
  const input = run.input as StartInput;
  const ensemble: EnsembleMessageMeta = { ...(input.meta ?? {}), taskText: input.text, runId: run.id };
  return new HumanMessage({ id: humanMessageId(run.id), content: input.messageContent ?? input.text, additional_kwargs: { ensemble } });
}

/** The graph of a conversation's agent, built only to read its thread state (no provider needed). */
export async function inspectionGraph(agent: Agent, run: Run): Promise<AgentGraph> {
  return buildAgentGraph(agent, runContextFor(run, agent.id), { model: new ScriptedChatModel({ agentName: agent.name }) });
}

/**
 * Execute the run and record its outcome. The promise settles only once nothing of the run is executing any more:
 * an abort makes LangGraph stop awaiting the node in flight, so the executor waits for that node's own work
 * (NodeWork) before it records anything. Until then the row stays running and the conversation busy.
 */
async function executeRun(runId: string, controller: AbortController, mode: ExecutionMode): Promise<void> {
  const signal = controller.signal;
  // The run is marked running and its assembly recorded in one transaction. What fails in the second part is
  // thrown below, inside the try, so the run still gets its outcome. That part is a savepoint (a nested writeTx): on
  // Postgres a failed statement caught without one would abort the whole transaction at COMMIT, and the run would
  // stay pending for good.
  const started = await markRunning(runId, async (run) => {
    try {
      return await writeTx(async () => {
        const current = await loadAgent(run.conversationId);
        // The setup recorded at the run's start (or the run it goes on from), never the catalog as edited since.
        const agent = current && (await agentAsRecorded(run, current));
        // One context object for the whole run: the assembly record and the graph then share one build of its tools.
        const context = agent ? runContextFor(run, agent.id) : null;
        // A run a registered hook claims runs differently (a delegated child: the delegation's persona, capture tool
        // and time limit; run-setup.ts).
        const plan = agent && context ? runSetupFor(agent, context) : null;
        // How the agent is assembled for this run (once per run: a continued run keeps its first record).
        const fingerprint =
          agent && context
            ? await recordAssembly(run, plan?.agent ?? agent, context, { setup: agent, ...(plan?.timeLimitMinutes ? { timeLimitMinutes: plan.timeLimitMinutes } : {}) })
            : null;
        return { agent, context, plan, fingerprint };
      });
    } catch (failure) {
      // A conflict with another process's transaction is not the run's failure: the whole transaction runs again.
      if (isRetryableConflict(failure)) throw failure;
      return { failure };
    }
  });
  if (!started) return;
  const { run, then: setup } = started;
  const nodeWork = new NodeWork();
  let clearTimeLimit = () => {};
  try {
    if ('failure' in setup) throw setup.failure;
    const { agent, context, plan, fingerprint } = setup;
    recordRunStarted(run, mode === 'continue' ? 'continue' : run.kind === 'resume' ? 'resume' : 'start', {
      model: run.model,
      fingerprint,
      // Noted while the run's tools were built for its assembly record (the same context: one build).
      missingMcpServers: context ? missingMcpServersOf(context) : [],
    });
    if (!agent || !context) {
      await finishRun(runId, { status: 'error', error: 'The agent of this conversation was deleted' });
      return;
    }
    clearTimeLimit = armTimeLimit(controller, Math.min(runTimeLimitMinutes(agent), plan?.timeLimitMinutes ?? Infinity));
    const graph = await buildAgentGraph(plan?.agent ?? agent, context, { nodeWork, ...plan?.graphOptions });
    const input = mode === 'continue' ? null : run.kind === 'start' ? { messages: [runHumanMessage(run)] } : new Command({ resume: (run.input as ResumeInput).value });
    const config = {
      configurable: { ...threadConfig(run.conversationId).configurable, ensemble: context },
      recursionLimit: recursionLimitFor(agent),
      signal,
      streamMode: 'updates' as const,
      // Each step's checkpoint is written before the next step starts, so a crash loses at most the step in flight.
      durability: 'sync' as const,
    };
    // Drained for its side effects (the steps run as it is read); usage is taken from the recorded model calls.
    for await (const _update of await graph.stream(input as Parameters<AgentGraph['stream']>[0], config));
    signal.throwIfAborted();
    const state = await graph.getState(threadConfig(run.conversationId));
    const outcome = outcomeOf(state, run.id);
    // Its job's finalize step reads the result from these instead of the checkpoint again.
    if (outcome.done) keepFinalMessages(run.id, (state.values?.messages as BaseMessage[] | undefined) ?? []);
    await finishRun(runId, outcome.done ? outcome : { status: 'error', error: 'The run stopped before it finished' });
  } catch (err) {
    // Why it ended is decided now (a limit reached while waiting below does not turn a failure into a time cap).
    const aborted = signal.aborted;
    await nodeWork.settled();
    // A shutdown leaves the row unfinished on purpose: the next start continues it from its checkpoint. The step in
    // flight was not saved and will be redone, so its queued events are dropped (it records them again).
    if (aborted && isSuspension(signal.reason)) return discardJournal(run.conversationId);
    if (aborted && isTimeCap(signal.reason)) await finishRun(runId, { status: 'error', error: signal.reason.message, stopReason: TIME_CAPPED_REASON });
    else if (aborted) await finishRun(runId, { status: 'cancelled' });
    else await finishRun(runId, { status: 'error', error: errorMessage(err) });
  } finally {
    clearTimeLimit();
  }
}

function errorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.trim().slice(0, 2_000) || 'The run failed';
}

