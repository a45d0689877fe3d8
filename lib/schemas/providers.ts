import { z } from 'zod';
import { PROVIDER_SLUG, RESERVED_PROVIDER_SLUGS } from '../models';
import { LIMITS } from '../limits';
import { PROVIDER_KINDS, PROVIDER_LIMITS, type ProviderKind } from '../provider-kinds';
import { boundedText } from './common';

/**
 * A provider an admin manages in the app (ADR 043): its kind, a name for people, a slug for model strings
 * (`<slug>:<model>`), a base URL and an API key. The same schemas check the Admin page's form and the HTTP API.
 */

export { DEFAULT_BASE_URLS, PROVIDER_KIND_LABELS, PROVIDER_KINDS, PROVIDER_LIMITS, type ProviderKind } from '../provider-kinds';

const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

export const providerNameSchema = z
  .string({ error: 'Must be text' })
  .trim()
  .pipe(boundedText({ minChars: 1, maxChars: PROVIDER_LIMITS.name.maxChars }))
  .refine((v) => !CONTROL_CHARS.test(v), 'Must not contain line breaks or control characters');

export const providerSlugSchema = z
  .string({ error: 'Must be text' })
  .trim()
  .refine((v) => PROVIDER_SLUG.test(v), 'Use 1 to 32 lowercase letters, digits and hyphens (not at either end), e.g. "groq"')
  .refine((v) => !RESERVED_PROVIDER_SLUGS.includes(v), 'Reserved for a built-in provider (openai, anthropic, ollama, scripted)');

export const providerBaseUrlSchema = z
  .string({ error: 'Must be text' })
  .trim()
  .max(PROVIDER_LIMITS.baseUrl.maxChars, `Must be at most ${PROVIDER_LIMITS.baseUrl.maxChars} characters`)
  .refine((v) => {
    if (!URL.canParse(v)) return false;
    const url = new URL(v);
    // Credentials in the URL would be shown to every admin and sent with every call: they belong in the key.
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && !url.search && !url.hash;
  }, 'Must be an http(s) URL without credentials, query or fragment, e.g. https://api.openai.com/v1')
  .transform((v) => v.replace(/\/+$/, ''));

export const providerApiKeySchema = z
  .string({ error: 'Must be text' })
  .trim()
  .min(1, 'Required')
  .max(PROVIDER_LIMITS.apiKey.maxChars, `Must be at most ${PROVIDER_LIMITS.apiKey.maxChars} characters`)
  .refine((v) => /^[\x21-\x7e]+$/.test(v), 'Must be printable ASCII without spaces');

const kindSchema = z.enum(PROVIDER_KINDS, { error: 'Must be "openai", "anthropic" or "ollama"' });

/** A cap on the provider's calls (server/providers/capacity); null: the instance default (concurrency) or none (per minute). */
const capSchema = (bounds: { min: number; max: number }) =>
  z
    .number({ error: `Must be a whole number from ${bounds.min} to ${bounds.max}, or empty` })
    .int(`Must be a whole number from ${bounds.min} to ${bounds.max}, or empty`)
    .min(bounds.min, `Must be a whole number from ${bounds.min} to ${bounds.max}, or empty`)
    .max(bounds.max, `Must be a whole number from ${bounds.min} to ${bounds.max}, or empty`)
    .nullable()
    .optional();
const capFields = {
  maxConcurrent: capSchema(LIMITS.providers.concurrent),
  requestsPerMinute: capSchema(LIMITS.providers.requestsPerMinute),
};

export const createProviderSchema = z
  .object({
    kind: kindSchema,
    slug: providerSlugSchema,
    name: providerNameSchema,
    baseUrl: providerBaseUrlSchema,
    apiKey: providerApiKeySchema.optional(),
    ...capFields,
  })
  .strict();

/** An edit: omitted fields stay. `apiKey: null` removes the key; the slug never changes (agents name it). */
export const updateProviderSchema = z
  .object({
    name: providerNameSchema.optional(),
    baseUrl: providerBaseUrlSchema.optional(),
    apiKey: providerApiKeySchema.nullable().optional(),
    ...capFields,
  })
  .strict();

export type CreateProviderData = z.output<typeof createProviderSchema>;
export type UpdateProviderData = z.output<typeof updateProviderSchema>;

/** A provider as admins see it: never its key, only `••••` and the key's last four characters. */
export type ProviderView = {
  id: string;
  slug: string;
  name: string;
  kind: ProviderKind;
  baseUrl: string;
  /** `••••abcd`, or null when the provider has no key. */
  apiKey: string | null;
  models: string[];
  modelsFetchedAt: string | null;
  /** Its caps on calls in flight at once and started per minute (null: the instance default / none). */
  maxConcurrent: number | null;
  requestsPerMinute: number | null;
  /** Optional request parameters the server refused, which requests to it now leave out (as this process learned). */
  refusedParameters: string[];
  createdAt: string;
  updatedAt: string;
};

/** A provider configured by environment variables (read-only in the app). */
export type BuiltinProviderView = { slug: ProviderKind; name: string; kind: ProviderKind; configured: boolean; variables: string; refusedParameters: string[] };

export type ProviderTestResult = { ok: true; latencyMs: number; models: number } | { ok: false; latencyMs: number; error: string };
