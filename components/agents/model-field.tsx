'use client';

import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useState, type KeyboardEvent, type Ref } from 'react';
import { useController, type Control } from 'react-hook-form';
import { cn } from '@/components/ui/cn';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { nextActiveIndex } from '@/components/ui/listbox-keys';
import { filterModels, hasListedModels, unlistedModelWarning, type ModelCatalogProvider, type ModelOption } from '@/lib/model-picker';
import type { AgentCreate, AgentCreateInput } from '@/lib/schemas/agent';
import { modelCatalogQuery } from './queries';

/**
 * The agent form's Model field: a text field that is also a combobox (WAI-ARIA APG, list autocomplete without
 * automatic selection). Typing filters the models every provider lists, grouped under the provider's name; a pick
 * fills `<provider>:<model>` (or `scripted`). Any text stays allowed: a well-formed model its provider doesn't list
 * gets a warning, not an error (lists go stale; the form's validation still refuses what doesn't parse).
 */
export function ModelField({ control }: { control: Control<AgentCreateInput, unknown, AgentCreate> }) {
  const { field, fieldState } = useController({ control, name: 'model' });
  const catalog = useQuery(modelCatalogQuery());
  const providers = catalog.data?.providers ?? [];
  const value = field.value ?? '';
  const warning = fieldState.error ? null : unlistedModelWarning(value, providers);

  return (
    <Field
      label="Model"
      error={fieldState.error?.message}
      hint={
        <>
          {/* Polite and always present, so a warning that appears while typing is announced. */}
          <p aria-live="polite" className={cn(warning && 'mb-1 text-sm text-amber-700 dark:text-amber-400')}>
            {warning}
          </p>
          <code className="font-mono">scripted</code> is built in, free and offline. Or a provider and model, e.g.{' '}
          <code className="font-mono">openai:gpt-4.1-mini</code>, <code className="font-mono">anthropic:claude-sonnet-4-5</code>,{' '}
          <code className="font-mono">ollama:llama3.2</code>. Type to search the models each provider lists.
        </>
      }
    >
      <ModelCombobox
        inputRef={field.ref}
        name={field.name}
        value={value}
        onChange={field.onChange}
        onBlur={field.onBlur}
        providers={providers}
        loading={catalog.isPending}
        failed={catalog.isError}
      />
    </Field>
  );
}

type ComboboxProps = {
  /** From Field: the label's target and the hint/error descriptions. */
  id?: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
  inputRef: Ref<HTMLInputElement>;
  name: string;
  value: string;
  onChange: (value: string) => void;
  onBlur: () => void;
  providers: readonly ModelCatalogProvider[];
  loading: boolean;
  failed: boolean;
};

function ModelCombobox({ id, inputRef, name, value, onChange, onBlur, providers, loading, failed, ...described }: ComboboxProps) {
  const listboxId = useId();
  const [open, setOpen] = useState(false);
  // The list is filtered by what was typed since it opened; opened by a click or an arrow it shows everything.
  const [typed, setTyped] = useState(false);
  const [active, setActive] = useState(-1);
  const shown = useMemo(() => filterModels(providers, typed ? value : ''), [providers, typed, value]);
  const optionId = (i: number) => `${listboxId}-option-${i}`;
  const activeId = open && active >= 0 && active < shown.options.length ? optionId(active) : undefined;

  useEffect(() => {
    if (activeId) document.getElementById(activeId)?.scrollIntoView({ block: 'nearest' });
  }, [activeId]);

  const openAll = () => {
    setTyped(false);
    setOpen(true);
    return filterModels(providers, '').options;
  };
  const close = () => {
    setOpen(false);
    setActive(-1);
  };
  const pick = (option: ModelOption) => {
    onChange(option.value);
    setTyped(false);
    close();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.nativeEvent.isComposing) return; // an input method's keys are its own
    if (!open) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const all = openAll();
        const current = all.findIndex((o) => o.value === value);
        setActive(current >= 0 ? current : e.key === 'ArrowDown' ? 0 : all.length - 1);
      }
      return;
    }
    if (e.key === 'Escape' || (e.key === 'ArrowUp' && e.altKey)) {
      e.preventDefault();
      close();
      return;
    }
    if (e.key === 'Enter') {
      const option = activeId ? shown.options[active] : undefined;
      if (option) {
        e.preventDefault(); // a pick, not the form's submit
        pick(option);
      } else close();
      return;
    }
    if (e.key === 'Tab') return close();
    const next = nextActiveIndex(e.key, active, shown.options.length);
    if (next !== null) {
      e.preventDefault();
      setActive(next);
    }
  };

  let status: string | null = null;
  if (loading) status = 'Loading models…';
  else if (failed) status = 'Could not load the model list. You can still type a model.';
  else if (!hasListedModels(providers)) status = 'No models listed yet — an admin can test the provider’s connection on the Admin page.';
  else if (shown.options.length === 0) status = 'No listed model matches. You can keep what you typed.';
  else if (shown.matched > shown.options.length) status = `Showing ${shown.options.length} of ${shown.matched}. Type to narrow the list.`;

  // Each group's first index in shown.options (the active index runs across groups).
  const starts = shown.groups.map((_, g) => shown.groups.slice(0, g).reduce((n, group) => n + group.options.length, 0));
  return (
    <div className="relative">
      <Input
        {...described}
        ref={inputRef}
        id={id}
        name={name}
        value={value}
        role="combobox"
        aria-expanded={open}
        aria-controls={listboxId}
        aria-autocomplete="list"
        aria-activedescendant={activeId}
        autoComplete="off"
        autoCapitalize="none"
        autoCorrect="off"
        spellCheck={false}
        enterKeyHint="done"
        className="font-mono"
        onChange={(e) => {
          onChange(e.target.value);
          setTyped(true);
          setOpen(true);
          setActive(-1);
        }}
        onClick={() => (open ? close() : openAll())}
        onKeyDown={onKeyDown}
        onBlur={() => {
          close();
          onBlur();
        }}
      />
      {/* Rendered closed too (hidden), so aria-controls always names an element. */}
      <div
        hidden={!open}
        className="absolute inset-x-0 top-full z-20 mt-1 max-h-72 overflow-y-auto overscroll-contain rounded-md border border-zinc-200 bg-white py-1 shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
      >
        <div id={listboxId} role="listbox" aria-label="Suggestions by provider" aria-busy={loading || undefined}>
          {open
            ? shown.groups.map((group, g) => {
                const headingId = `${listboxId}-group-${g}`;
                return (
                  <div key={group.provider.id} role="group" aria-labelledby={headingId}>
                    <div
                      id={headingId}
                      role="presentation"
                      className="px-3 pt-2 pb-1 text-xs font-semibold tracking-wide text-zinc-500 uppercase wrap-anywhere dark:text-zinc-400"
                    >
                      {group.provider.name}
                    </div>
                    {group.options.map((option, o) => {
                      const i = starts[g]! + o;
                      const isActive = i === active;
                      return (
                        <div
                          key={option.value}
                          id={optionId(i)}
                          role="option"
                          aria-selected={isActive}
                          // Keep the focus in the field: a click must not blur it (and close the list) first.
                          onMouseDown={(e) => e.preventDefault()}
                          onClick={() => pick(option)}
                          onMouseMove={() => !isActive && setActive(i)}
                          className={cn(
                            'cursor-pointer px-3 py-2 font-mono text-sm wrap-anywhere',
                            isActive ? 'bg-indigo-600 text-white' : 'text-zinc-900 dark:text-zinc-100',
                          )}
                        >
                          {option.model}
                        </div>
                      );
                    })}
                  </div>
                );
              })
            : null}
        </div>
        {open && status ? (
          <div role="status" className="px-3 py-2 text-sm text-zinc-600 dark:text-zinc-400">
            {status}
          </div>
        ) : null}
      </div>
    </div>
  );
}
