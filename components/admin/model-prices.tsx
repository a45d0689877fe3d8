'use client';

import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Alert } from '@/components/ui/misc';
import type { ModelPriceView } from '@/lib/schemas/prices';
import { setModelPriceAction } from '@/app/(app)/admin/price-actions';
import { useActionCall } from './use-action-call';

const FIELDS = ['model', 'inputPerMillion', 'outputPerMillion'] as const;

const shown = (usd: string | null) => (usd === null ? 'unknown' : `$${usd}`);

/**
 * Model prices (ADR 048): per model string, US dollars per million input and output tokens. An empty field is
 * unknown, and a run of that model then has an unknown cost (never $0). A change prices runs that finish from now
 * on; runs already finished keep the cost they were given. `models` are suggestions (the providers' lists).
 */
export function ModelPrices({ prices, models }: { prices: ModelPriceView[]; models: string[] }) {
  const router = useRouter();
  const [model, setModel] = useState('');
  const [input, setInput] = useState('');
  const [output, setOutput] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  const { call, pending, fieldErrors: errors, error } = useActionCall(FIELDS);

  const save = async (body: { model: string; inputPerMillion: string | null; outputPerMillion: string | null }) => {
    setSaved(null);
    const result = await call(() => setModelPriceAction(body));
    if (!result.ok) return;
    setSaved(body.model.trim());
    setModel('');
    setInput('');
    setOutput('');
    router.refresh();
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void save({ model, inputPerMillion: input, outputPerMillion: output });
  };

  const edit = (p: ModelPriceView) => {
    setModel(p.model);
    setInput(p.inputPerMillion ?? '');
    setOutput(p.outputPerMillion ?? '');
    setSaved(null);
  };

  return (
    <div className="space-y-4">
      {prices.length ? (
        <table className="w-full text-left text-sm">
          <caption className="sr-only">Prices per million tokens</caption>
          <thead className="text-zinc-600 dark:text-zinc-400">
            <tr>
              <th scope="col" className="py-1 pr-3 font-medium">Model</th>
              <th scope="col" className="py-1 pr-3 font-medium">Input per 1M tokens</th>
              <th scope="col" className="py-1 pr-3 font-medium">Output per 1M tokens</th>
              <th scope="col" className="py-1 font-medium"><span className="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {prices.map((p) => (
              <tr key={p.model} className="border-t border-zinc-200 dark:border-zinc-800">
                <th scope="row" className="py-2 pr-3 font-mono font-normal break-all">{p.model}</th>
                <td className="py-2 pr-3 tabular-nums">{shown(p.inputPerMillion)}</td>
                <td className="py-2 pr-3 tabular-nums">{shown(p.outputPerMillion)}</td>
                <td className="py-2 text-right whitespace-nowrap">
                  <Button variant="ghost" size="sm" onClick={() => edit(p)} aria-label={`Edit prices of ${p.model}`}>
                    Edit
                  </Button>
                  <Button
                    variant="ghost"
                    size="sm"
                    pending={pending}
                    onClick={() => void save({ model: p.model, inputPerMillion: null, outputPerMillion: null })}
                    aria-label={`Forget prices of ${p.model}`}
                  >
                    Forget
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">No prices yet: every run’s cost is unknown.</p>
      )}
      <form onSubmit={submit} noValidate aria-labelledby="set-price-heading" className="space-y-3">
        <h3 id="set-price-heading" className="font-medium text-zinc-900 dark:text-zinc-100">
          Set a model’s prices
        </h3>
        <div className="grid gap-3 sm:grid-cols-3">
          <Field label="Model" error={errors.model} hint="As agents name it: scripted, openai:gpt-4.1-mini, slug:model.">
            <Input value={model} onChange={(e) => setModel(e.target.value)} list="price-models" autoComplete="off" spellCheck={false} />
          </Field>
          <Field label="Input, $ per 1M tokens" error={errors.inputPerMillion} hint="Empty: unknown.">
            <Input value={input} onChange={(e) => setInput(e.target.value)} inputMode="decimal" autoComplete="off" />
          </Field>
          <Field label="Output, $ per 1M tokens" error={errors.outputPerMillion} hint="Empty: unknown.">
            <Input value={output} onChange={(e) => setOutput(e.target.value)} inputMode="decimal" autoComplete="off" />
          </Field>
        </div>
        <datalist id="price-models">
          {models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        {error ? <Alert>{error}</Alert> : null}
        {saved ? (
          <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
            Saved the prices of {saved}. Runs that finish from now on are priced with them.
          </p>
        ) : null}
        <Button type="submit" pending={pending}>
          Save prices
        </Button>
      </form>
    </div>
  );
}
