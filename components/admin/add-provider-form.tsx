'use client';

import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { AddFormFooter } from '@/components/ui/add-form-footer';
import { Field } from '@/components/ui/field';
import { Input, Select } from '@/components/ui/input';
import { DEFAULT_BASE_URLS, PROVIDER_KIND_LABELS, PROVIDER_KINDS, PROVIDER_LIMITS, type ProviderKind } from '@/lib/provider-kinds';
import { createProviderAction } from '@/app/(app)/admin/provider-actions';
import { useActionCall } from './use-action-call';

/** A slug suggested from the name while the admin hasn't typed one: lowercase ASCII words joined by hyphens. */
const suggestSlug = (name: string) =>
  name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32)
    .replace(/-+$/, '');

const FIELDS = ['name', 'slug', 'baseUrl', 'apiKey'] as const;

/** Add a provider: kind, name, slug (its name in model strings), base URL and key (sent once, never shown again). */
export function AddProviderForm() {
  const router = useRouter();
  const [kind, setKind] = useState<ProviderKind>('openai');
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [slugTouched, setSlugTouched] = useState(false);
  const [baseUrl, setBaseUrl] = useState(DEFAULT_BASE_URLS.openai);
  const [apiKey, setApiKey] = useState('');
  const [added, setAdded] = useState<string | null>(null);
  const { call, pending, fieldErrors: errors, error } = useActionCall(FIELDS);

  const changeKind = (next: ProviderKind) => {
    // The default endpoint follows the kind until the admin has typed their own.
    if (baseUrl === DEFAULT_BASE_URLS[kind] || baseUrl === '') setBaseUrl(DEFAULT_BASE_URLS[next]);
    setKind(next);
  };

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setAdded(null);
    const result = await call(() => createProviderAction({ kind, name, slug, baseUrl, ...(apiKey.trim() ? { apiKey } : {}) }));
    if (!result.ok) return;
    setAdded(result.data.name);
    setName('');
    setSlug('');
    setSlugTouched(false);
    setApiKey('');
    router.refresh();
  };

  return (
    <form onSubmit={submit} noValidate aria-labelledby="add-provider-heading" className="space-y-3">
      <h3 id="add-provider-heading" className="font-medium text-zinc-900 dark:text-zinc-100">
        Add a provider
      </h3>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Kind">
          <Select value={kind} onChange={(e) => changeKind(e.target.value as ProviderKind)}>
            {PROVIDER_KINDS.map((k) => (
              <option key={k} value={k}>
                {PROVIDER_KIND_LABELS[k]}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Name" hint={`Shown to people (up to ${PROVIDER_LIMITS.name.maxChars} characters).`} error={errors.name}>
          <Input
            type="text"
            autoComplete="off"
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              if (!slugTouched) setSlug(suggestSlug(e.target.value));
            }}
          />
        </Field>
        <Field label="Slug" hint={<>Its name in model strings: {slug ? <code>{slug}:model</code> : 'e.g. groq:llama-3.3-70b'}. It can&apos;t change later.</>} error={errors.slug}>
          <Input
            type="text"
            autoComplete="off"
            spellCheck={false}
            value={slug}
            onChange={(e) => {
              setSlug(e.target.value);
              setSlugTouched(true);
            }}
          />
        </Field>
        <Field label="Base URL" error={errors.baseUrl}>
          <Input type="url" autoComplete="off" spellCheck={false} value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} />
        </Field>
        <Field label="API key" hint={kind === 'ollama' ? 'Optional for Ollama.' : 'Stored encrypted; after saving only its last four characters are shown.'} error={errors.apiKey}>
          <Input type="password" autoComplete="new-password" spellCheck={false} value={apiKey} onChange={(e) => setApiKey(e.target.value)} />
        </Field>
      </div>
      <AddFormFooter label="Add provider" pending={pending} error={error} added={added} />
    </form>
  );
}
