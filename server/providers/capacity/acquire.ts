import 'server-only';
import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import {
  CALL_LEASE_MS,
  claimProviderCall,
  dropProviderCall,
  finishProviderCall,
  renewProviderCall,
  type CapacityWait,
  type ProviderLimits,
} from './provider-calls';

/** Another process's call may end without a signal here: a waiting call looks again at least this often. */
const POLL_MS = 1_000;

// A call ending in this process wakes its waiting calls at once (on globalThis: one emitter for every module copy).
const g = globalThis as unknown as { __ensembleProviderCapacity?: EventEmitter };
const ended = (g.__ensembleProviderCapacity ??= new EventEmitter().setMaxListeners(0));

export type CapacityRequest = {
  providerKey: string;
  limits: ProviderLimits;
  runId?: string | null;
  /** The run's signal: a cancel or its time limit ends the wait (the call leaves the queue). */
  signal?: AbortSignal;
  /** The call must wait, and why; called again only when the reason changes. */
  onWait?: (wait: CapacityWait) => void;
};

/**
 * Run `call` once the provider has room for it (concurrency and per-minute caps, counted across every run and
 * process: provider-calls.ts), holding its place while it runs: a team of eight members on one key queues instead
 * of sending a storm of requests that answer 429. The place is renewed while the call runs and given back when it
 * settles, however it settles.
 */
export async function withProviderCapacity<T>(request: CapacityRequest, call: () => Promise<T>): Promise<T> {
  const id = crypto.randomUUID();
  await waitForRoom(id, request);
  const renew = setInterval(() => void renewProviderCall(id).catch((err) => console.error('[providers] could not renew a model call', err)), CALL_LEASE_MS / 3);
  renew.unref?.();
  try {
    return await call();
  } finally {
    clearInterval(renew);
    await finishProviderCall(id).catch((err) => console.error('[providers] could not record the end of a model call', err));
    ended.emit(request.providerKey);
  }
}

async function waitForRoom(id: string, request: CapacityRequest): Promise<void> {
  let shown: string | undefined;
  try {
    for (;;) {
      request.signal?.throwIfAborted();
      const outcome = await claimProviderCall({ id, providerKey: request.providerKey, runId: request.runId ?? null }, request.limits);
      if (outcome.granted) return;
      const said = `${outcome.wait.reason}:${outcome.wait.reason === 'queue' ? outcome.wait.ahead : ''}`;
      if (said !== shown) request.onWait?.(outcome.wait);
      shown = said;
      const pause = outcome.wait.reason === 'rate' ? Math.min(POLL_MS, Math.max(0, outcome.wait.retryAt - Date.now())) : POLL_MS;
      await nextChance(request.providerKey, pause, request.signal);
    }
  } catch (reason) {
    // Given up while it waited: it leaves the queue, and the call behind it may go.
    await dropProviderCall(id).catch((err) => console.error('[providers] could not drop a waiting model call', err));
    ended.emit(request.providerKey);
    throw reason;
  }
}

/** Resolves when a call of the provider ends in this process, or after `ms`; rejects when the signal aborts. */
function nextChance(providerKey: string, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      ended.off(providerKey, done);
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const abort = () => {
      clearTimeout(timer);
      ended.off(providerKey, done);
      reject(signal!.reason);
    };
    const timer = setTimeout(done, ms);
    ended.on(providerKey, done);
    signal?.addEventListener('abort', abort, { once: true });
  });
}
