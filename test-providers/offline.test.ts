/**
 * Offline safety: the app of this suite runs with every connection beyond loopback refused and recorded
 * (offline-preload.cjs, loaded by global-setup.ts). The embedded scripted model and a local stub provider answer,
 * and so does an OpenAI model past its compaction threshold (js-tiktoken counts, the summary call goes to the stub);
 * after everything the suite did, nothing tried to reach the internet (no tokenizer download, no telemetry).
 * Runs after conformance.test.ts (files run one at a time, in order), so its record covers those cases too.
 */
import fs from 'node:fs';
import { expect, inject, test } from 'vitest';
import { Api } from './api';

test('with outbound connections refused, the scripted model and a local stub provider work, and nothing tried to leave', async () => {
  const { url, token, pid, offlineLog } = inject('providersApp');
  const api = new Api(url, token);

  const scripted = await api.createConversation(await api.createAgent('scripted'));
  const scriptedRun = await api.send(scripted, 'What is 6*7?\n/call calculator {"expression":"6*7"}');
  expect({ status: scriptedRun.status, error: scriptedRun.error }).toEqual({ status: 'success', error: null });
  expect((await api.messages(scripted)).find((m) => m.role === 'tool')?.text).toContain('42');

  const stub = await api.createConversation(await api.createAgent('openai:stub'));
  const stubRun = await api.send(stub, 'What is 6*7?');
  expect({ status: stubRun.status, error: stubRun.error }).toEqual({ status: 'success', error: null });
  expect((await api.messages(stub)).at(-1)?.text).toContain('42');

  // An OpenAI model js-tiktoken covers, past its compaction threshold: the tokenizer counts (its ranks are bundled)
  // and the summary call goes to the stub, with nothing fetched.
  const counted = await api.createConversation(await api.createAgent('openai:gpt-4o-mini', { compactAtTokens: 1_000 }));
  const padding = ' Please keep the earlier context of this long question in mind.'.repeat(45);
  const counting: string[] = [];
  for (const question of ['What is 2+3?', 'What is 6*7?', 'What is 10-4?']) {
    const run = await api.send(counted, question + padding);
    expect({ status: run.status, error: run.error }).toEqual({ status: 'success', error: null });
    counting.push(...(await api.events(run.id)).filter((event) => event.type === 'compaction').map((event) => String(event.counter)));
    expect((await api.events(run.id)).filter((event) => event.type === 'model.call' && event.error)).toEqual([]);
  }
  expect(counting.length, 'compactions').toBeGreaterThan(0);
  expect(new Set(counting)).toEqual(new Set(['tokenizer']));

  const entries = fs
    .readFileSync(offlineLog, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { pid: number; kind: string; host?: string; port?: number; stack?: string });
  // The guard loaded in the server itself (the user CLI that made the account loads it too), so an empty record
  // means nothing was tried.
  expect(entries.filter((entry) => entry.kind === 'loaded').map((entry) => entry.pid)).toContain(pid);
  expect(entries.filter((entry) => entry.kind !== 'loaded')).toEqual([]);
});
