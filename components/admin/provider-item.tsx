'use client';

import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { EditFormFooter } from '@/components/ui/edit-form-footer';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Alert, Badge } from '@/components/ui/misc';
import { Time } from '@/components/ui/time';
import { LIMITS } from '@/lib/limits';
import { PROVIDER_KIND_LABELS } from '@/lib/provider-kinds';
import type { ProviderTestResult, ProviderView } from '@/lib/schemas/providers';
import { deleteProviderAction, testProviderAction, updateProviderAction } from '@/app/(app)/admin/provider-actions';
import { ConfirmRemoval } from './confirm-removal';
import { RefusedParameters } from './refused-parameters';
import { useActionCall } from './use-action-call';

const FIELDS = ['name', 'baseUrl', 'apiKey', 'maxConcurrent', 'requestsPerMinute'] as const;

/** A cap field's text as the API takes it: empty is null (the default); anything else a number the server checks. */
const capValue = (text: string): number | null => (text.trim() === '' ? null : Number(text.trim()));

/** One managed provider: what it is, Test connection (latency or the error), Edit and Remove. */
export function ProviderItem({ provider }: { provider: ProviderView }) {
  const router = useRouter();
  const [test, setTest] = useState<ProviderTestResult | null>(null);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const { call: callTest, pending: testing, error } = useActionCall();

  const runTest = async () => {
    setTest(null);
    const result = await callTest(() => testProviderAction(provider.id));
    if (!result.ok) return;
    setTest(result.data);
    router.refresh();
  };

  return (
    <li className="space-y-3 p-3">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-48 flex-1 space-y-1">
          <p className="flex flex-wrap items-center gap-2">
            <span className="min-w-0 font-medium break-words text-zinc-900 dark:text-zinc-100">{provider.name}</span>
            <Badge>{PROVIDER_KIND_LABELS[provider.kind]}</Badge>
          </p>
          <p className="text-xs break-all text-zinc-600 dark:text-zinc-400">
            Models as <code>{provider.slug}:…</code> · {provider.baseUrl} · {provider.apiKey ? <>key {provider.apiKey}</> : 'no key'}
          </p>
          <p className="text-xs text-zinc-600 dark:text-zinc-400">
            {provider.maxConcurrent ?? LIMITS.providers.concurrent.default} calls at once
            {provider.requestsPerMinute ? ` · ${provider.requestsPerMinute} a minute` : ''}
          </p>
          <p className="text-xs text-zinc-600 dark:text-zinc-400">
            {provider.modelsFetchedAt ? (
              <>
                {provider.models.length === 1 ? '1 model' : `${provider.models.length} models`} listed <Time iso={provider.modelsFetchedAt} format="datetime" />
              </>
            ) : (
              'Models not listed yet: test the connection to list them.'
            )}
          </p>
          <RefusedParameters parameters={provider.refusedParameters} />
        </div>
        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" size="sm" onClick={runTest} pending={testing} aria-label={`Test connection to ${provider.name}`}>
            {testing ? 'Testing…' : 'Test connection'}
          </Button>
          <Button variant="secondary" size="sm" onClick={() => setEditing((v) => !v)} aria-expanded={editing} aria-label={`Edit ${provider.name}`}>
            Edit
          </Button>
          <Button variant="secondary" size="sm" onClick={() => setConfirming(true)} aria-label={`Remove ${provider.name}`}>
            Remove
          </Button>
        </div>
      </div>
      <div role="status" aria-live="polite" className="text-sm">
        {test?.ok ? (
          <span className="text-emerald-700 dark:text-emerald-400">
            Connected in {test.latencyMs} ms: {test.models === 1 ? '1 model' : `${test.models} models`} listed.
          </span>
        ) : null}
        {test && !test.ok ? <span className="text-red-600 dark:text-red-400">Connection failed after {test.latencyMs} ms: {test.error}</span> : null}
      </div>
      {error ? <Alert>{error}</Alert> : null}
      {editing ? <EditProviderForm provider={provider} onDone={() => setEditing(false)} /> : null}
      <ConfirmRemoval
        open={confirming}
        name={provider.name}
        description={`Agents whose model starts with "${provider.slug}:" stay as they are and can be edited; their runs fail until they use another model or a provider named "${provider.slug}" is added again.`}
        confirmLabel="Remove provider"
        remove={() => deleteProviderAction(provider.id)}
        onClose={() => setConfirming(false)}
        onRemoved={() => router.refresh()}
      />
    </li>
  );
}

function EditProviderForm({ provider, onDone }: { provider: ProviderView; onDone: () => void }) {
  const router = useRouter();
  const [name, setName] = useState(provider.name);
  const [baseUrl, setBaseUrl] = useState(provider.baseUrl);
  const [apiKey, setApiKey] = useState('');
  const [removeKey, setRemoveKey] = useState(false);
  const [maxConcurrent, setMaxConcurrent] = useState(provider.maxConcurrent?.toString() ?? '');
  const [requestsPerMinute, setRequestsPerMinute] = useState(provider.requestsPerMinute?.toString() ?? '');
  const { call, pending, fieldErrors: errors, error } = useActionCall(FIELDS);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const key = removeKey ? { apiKey: null } : apiKey.trim() ? { apiKey } : {};
    const caps = { maxConcurrent: capValue(maxConcurrent), requestsPerMinute: capValue(requestsPerMinute) };
    const result = await call(() => updateProviderAction(provider.id, { name, baseUrl, ...key, ...caps }));
    if (!result.ok) return;
    router.refresh();
    onDone();
  };

  return (
    <form onSubmit={submit} noValidate aria-label={`Edit ${provider.name}`} className="space-y-3 rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Name" error={errors.name}>
          <Input type="text" autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field label="Base URL" error={errors.baseUrl}>
          <Input type="url" autoComplete="off" spellCheck={false} value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} />
        </Field>
        <Field label="New API key" hint={provider.apiKey ? `Leave empty to keep ${provider.apiKey}.` : 'Leave empty for no key.'} error={errors.apiKey}>
          <Input type="password" autoComplete="new-password" spellCheck={false} value={apiKey} disabled={removeKey} onChange={(e) => setApiKey(e.target.value)} />
        </Field>
        <Field label="Calls at once" hint={`Its model calls in flight across every run; more wait their turn. Empty: ${LIMITS.providers.concurrent.default}.`} error={errors.maxConcurrent}>
          <Input type="text" inputMode="numeric" autoComplete="off" value={maxConcurrent} onChange={(e) => setMaxConcurrent(e.target.value)} />
        </Field>
        <Field label="Calls per minute" hint="Model calls started per minute across every run. Empty: no limit." error={errors.requestsPerMinute}>
          <Input type="text" inputMode="numeric" autoComplete="off" value={requestsPerMinute} onChange={(e) => setRequestsPerMinute(e.target.value)} />
        </Field>
      </div>
      {provider.apiKey ? (
        <label className="flex items-center gap-2 text-sm text-zinc-800 dark:text-zinc-200">
          <input type="checkbox" checked={removeKey} onChange={(e) => setRemoveKey(e.target.checked)} />
          Remove the stored key
        </label>
      ) : null}
      <EditFormFooter pending={pending} error={error} onCancel={onDone} />
    </form>
  );
}
