/**
 * Offline safety: the app of this suite runs with every connection beyond loopback refused and recorded
 * (offline-preload.cjs, loaded by global-setup.ts). The embedded scripted model and a local stub provider answer,
 * and after everything the suite did, nothing tried to reach the internet (no tokenizer download, no telemetry).
 * Runs after conformance.test.ts (files run one at a time, in order), so its record covers those cases too.
 */
import fs from 'node:fs';
import { expect, inject, test } from 'vitest';
import { Api } from './api';

test('with outbound connections refused, the scripted model and a local stub provider work, and nothing tried to leave', async () => {
  const { url, token, offlineLog } = inject('providersApp');
  const api = new Api(url, token);

  const scripted = await api.createConversation(await api.createAgent('scripted'));
  const scriptedRun = await api.send(scripted, 'What is 6*7?\n/call calculator {"expression":"6*7"}');
  expect({ status: scriptedRun.status, error: scriptedRun.error }).toEqual({ status: 'success', error: null });
  expect((await api.messages(scripted)).find((m) => m.role === 'tool')?.text).toContain('42');

  const stub = await api.createConversation(await api.createAgent('openai:stub'));
  const stubRun = await api.send(stub, 'What is 6*7?');
  expect({ status: stubRun.status, error: stubRun.error }).toEqual({ status: 'success', error: null });
  expect((await api.messages(stub)).at(-1)?.text).toContain('42');

  const entries = fs
    .readFileSync(offlineLog, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { kind: string; host?: string; port?: number; stack?: string });
  // The guard loaded (in `next start` and any process it started), so an empty record means nothing was tried.
  expect(entries.filter((entry) => entry.kind === 'loaded').length).toBeGreaterThan(0);
  expect(entries.filter((entry) => entry.kind !== 'loaded')).toEqual([]);
});
