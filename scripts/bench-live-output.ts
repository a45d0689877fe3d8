/**
 * Live output benchmark (`npx tsx --conditions=react-server scripts/bench-live-output.ts`): measures, never asserts.
 * What streaming the one model call costs (ADR 031), on the scripted model without a database: CPU per call of
 * `model.invoke` (the path before) and of the graph's model call `callAgentModel` inside a run scope (chunks joined,
 * the tail kept, the throttled push, the attempt observed, the server id), for a short answer and one at the
 * 6,000-byte result cap; and the tail's cost for a 100,000-word answer in word chunks (linear: each append costs the
 * chunk and what it pushes out). Calls alternate between the two paths so drift falls on both. Env: BENCH_CALLS (per path and size, default 300).
 */
import { HumanMessage } from '@langchain/core/messages';
import { finishLiveOutput } from '@/server/agents/live-output/registry';
import { appendTail, EMPTY_TAIL } from '@/server/agents/live-output/text-tail';
import { callAgentModel } from '@/server/agents/model-call/call-model';
import { ScriptedChatModel } from '@/server/agents/scripted-model';

const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const cpuMs = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1_000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function compare(label: string, reply: string) {
  const model = new ScriptedChatModel({ agentName: 'Bench', instructions: `/reply ${reply}` });
  const input = [new HumanMessage('go')];
  const invoked: number[] = [];
  const streamed: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const runId = `bench-${label}-${i}`;
    const options = { configurable: { ensemble: { ownerId: 'o', conversationId: 'c', runId, teamId: 't', jobId: `j${i}` } } };
    const order = i % 2 ? ['invoke', 'stream'] : ['stream', 'invoke'];
    for (const path of order) {
      const start = process.cpuUsage();
      if (path === 'invoke') await model.invoke(input);
      else await callAgentModel(model, input, options, { run: undefined, model: 'scripted' });
      (path === 'invoke' ? invoked : streamed).push(cpuMs(start));
    }
    finishLiveOutput(runId);
  }
  const words = reply.split(' ').length;
  console.log(
    `${label.padEnd(22)} ${String(Buffer.byteLength(reply)).padStart(5)} bytes, ${String(words).padStart(4)} words: ` +
      `invoke ${median(invoked).toFixed(3)} ms, streamed ${median(streamed).toFixed(3)} ms CPU per call (median of ${CALLS})`,
  );
}

async function main() {
  console.log(`node ${process.version}, live output benchmark`);
  await compare('short answer', 'The plan is ready for review.');
  const long = Array.from({ length: 1_200 }, (_, i) => `w${i}`).join(' ').slice(0, 5_990);
  await compare('answer at the 6 KB cap', long);
  const start = process.cpuUsage();
  let tail = EMPTY_TAIL;
  for (let i = 0; i < 100_000; i++) tail = appendTail(tail, `word${i} `);
  console.log(`tail: 100,000 word chunks (${tail.chars} characters kept) in ${cpuMs(start).toFixed(1)} ms CPU`);
}

void main();
