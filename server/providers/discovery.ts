import 'server-only';
import type { ProviderTestResult } from '@/lib/schemas/providers';
import { descriptorOf, type ProviderDescriptor } from './resolve';
import { providerRow, saveModels, toProviderView } from './store';

/**
 * Asking a provider which models it serves (ADR 043): OpenAI-compatible `GET <base>/models` (then `<base>/v1/models`
 * when the base URL has no /v1, only to say that the base URL lacks it), Anthropic `GET <base>/v1/models`, Ollama
 * `GET <base>/api/tags`. One call with a 5-second limit; the same call is "Test connection" (its latency is what the
 * admin sees). Errors are said plainly and never carry the key, even when a provider's error text quotes it.
 */

export const DISCOVERY_TIMEOUT_MS = 5_000;
/** A provider listing more than this is cut (the picker is for choosing, not for browsing thousands). */
export const MAX_MODELS = 1_000;
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._\-:/]{0,150}$/;
const ANTHROPIC_VERSION = '2023-06-01';

class DiscoveryError extends Error {}

function requestsFor(p: ProviderDescriptor): { url: string; headers: Record<string, string> }[] {
  const base = p.baseUrl.replace(/\/+$/, '');
  const bearer: Record<string, string> = p.apiKey ? { authorization: `Bearer ${p.apiKey}` } : {};
  switch (p.kind) {
    case 'openai':
      return [{ url: `${base}/models`, headers: bearer }, ...(/\/v1$/.test(base) ? [] : [{ url: `${base}/v1/models`, headers: bearer }])];
    case 'anthropic':
      return [{ url: `${base.replace(/\/v1$/, '')}/v1/models?limit=1000`, headers: { 'x-api-key': p.apiKey ?? '', 'anthropic-version': ANTHROPIC_VERSION } }];
    case 'ollama':
      return [{ url: `${base}/api/tags`, headers: bearer }];
  }
}

/** The model ids in a list response: `{ data: [{ id }] }` (OpenAI, Anthropic) or `{ models: [{ name }] }` (Ollama). */
export function modelIdsOf(body: unknown): string[] {
  const b = body as { data?: unknown; models?: unknown } | null;
  const entries = Array.isArray(b?.data) ? b.data : Array.isArray(b?.models) ? b.models : null;
  if (!entries) throw new DiscoveryError('The provider answered, but not with a model list.');
  const ids = entries
    .map((e) => (e && typeof e === 'object' ? ((e as { id?: unknown; name?: unknown }).id ?? (e as { name?: unknown }).name) : undefined))
    .filter((id): id is string => typeof id === 'string' && MODEL_NAME.test(id));
  return [...new Set(ids)].sort((a, b) => a.localeCompare(b)).slice(0, MAX_MODELS);
}

/** A short, key-free sentence from a provider's error body. */
function errorText(status: number, text: string, key: string | undefined): string {
  let detail = '';
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    if (typeof message === 'string') detail = message;
  } catch {
    // Not JSON: the status alone.
  }
  if (key) detail = detail.split(key).join('[key]');
  detail = detail.replace(/\s+/g, ' ').trim().slice(0, 200);
  return `HTTP ${status}${detail ? `: ${detail}` : ''}`;
}

async function fetchList(p: ProviderDescriptor, signal: AbortSignal): Promise<string[]> {
  let last = '';
  for (const [attempt, { url, headers }] of requestsFor(p).entries()) {
    // redirect: 'manual' — a redirect is reported, never followed with the key to wherever it points.
    const res = await fetch(url, { headers: { accept: 'application/json', ...headers }, signal, redirect: 'manual' });
    const text = await res.text();
    if (res.ok) {
      let models: string[];
      try {
        models = modelIdsOf(JSON.parse(text));
      } catch (err) {
        throw err instanceof DiscoveryError ? err : new DiscoveryError('The provider answered, but not with JSON.');
      }
      // Listed only under <base>/v1: a run's client posts to <base URL>/chat/completions, which would not be found.
      if (attempt > 0) {
        const base = url.replace(/\/models$/, '');
        throw new DiscoveryError(`The models are listed at ${base}, and requests go to the base URL + /chat/completions: set the base URL to ${base}.`);
      }
      return models;
    }
    last = res.status >= 300 && res.status < 400 ? `HTTP ${res.status}: the provider redirected elsewhere (check the base URL)` : errorText(res.status, text, p.apiKey);
    if (res.status !== 404) break;
  }
  throw new DiscoveryError(last);
}

function plainError(err: unknown): string {
  if (err instanceof DiscoveryError) return err.message;
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `No answer within ${DISCOVERY_TIMEOUT_MS / 1000} seconds.`;
  const cause = err instanceof Error ? (err.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  const why = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message.slice(0, 100) : '';
  if (why) return `Could not connect (${why}).`;
  return 'Could not connect.';
}

/** List the provider's models with one call; the result or a plain error, and how long it took. */
export async function discoverModels(p: ProviderDescriptor): Promise<{ ok: true; models: string[]; latencyMs: number } | { ok: false; error: string; latencyMs: number }> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const models = await fetchList(p, AbortSignal.timeout(DISCOVERY_TIMEOUT_MS));
    return { ok: true, models, latencyMs: elapsed() };
  } catch (err) {
    return { ok: false, error: plainError(err), latencyMs: elapsed() };
  }
}

/** Test connection: list the models (cached for the picker when it works) and report the latency or the error. */
export async function testProvider(id: string): Promise<ProviderTestResult & { provider: ReturnType<typeof toProviderView> }> {
  const row = await providerRow(id);
  let descriptor: ProviderDescriptor;
  try {
    descriptor = descriptorOf(row);
  } catch (err) {
    return { ok: false, latencyMs: 0, error: err instanceof Error ? err.message : 'The key could not be read.', provider: toProviderView(row) };
  }
  const result = await discoverModels(descriptor);
  if (!result.ok) return { ok: false, latencyMs: result.latencyMs, error: result.error, provider: toProviderView(row) };
  const saved = await saveModels(row, result.models);
  return { ok: true, latencyMs: result.latencyMs, models: result.models.length, provider: toProviderView(saved ?? row) };
}
