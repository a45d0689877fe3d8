'use client';

import { useId, useState } from 'react';
import { cn } from '@/components/ui/cn';
import type { AssemblyChange, AssemblyDescriptor } from '@/lib/types/assembly';
import { DisclosureButton } from './disclosure-button';
import { changedFieldsLine, formatSetupValue, setupChangeTexts, shortHash } from './setup-changes';

const plain = 'break-words [overflow-wrap:anywhere]';

/** The changed fields, before → after. */
export function SetupChangeList({ changes }: { changes: readonly AssemblyChange[] }) {
  return (
    <ul className="space-y-1 text-xs text-zinc-700 dark:text-zinc-300">
      {setupChangeTexts(changes).map((c) => (
        <li key={c.field} className={plain}>
          <span className="font-medium">{c.label}</span> <span className="font-mono text-zinc-500 dark:text-zinc-400">({c.field})</span>:{' '}
          <span className="font-mono">{c.before}</span> → <span className="font-mono">{c.after}</span>
        </li>
      ))}
    </ul>
  );
}

/**
 * "Setup changed": this run was assembled differently from the previous one (model, instructions, tools,
 * limits…). The badge names the fields; opening it shows each before → after.
 */
export function SetupChangedBadge({ changes }: { changes: readonly AssemblyChange[] }) {
  const [open, setOpen] = useState(false);
  const listId = useId();
  if (changes.length === 0) return null;
  return (
    <div className="min-w-0 text-xs">
      <DisclosureButton
        open={open}
        controls={listId}
        onToggle={() => setOpen((v) => !v)}
        className="rounded-full bg-amber-100 px-2 py-0.5 text-amber-900 hover:text-amber-950 dark:bg-amber-950 dark:text-amber-200 dark:hover:text-amber-100"
      >
        Setup changed
        <span aria-hidden>·</span>
        <span className="sr-only">:</span>
        <span className={cn('font-normal', plain)}>{changedFieldsLine(changes)}</span>
      </DisclosureButton>
      <div id={listId} hidden={!open} className="mt-1 rounded-md border border-amber-200 bg-amber-50 p-2 dark:border-amber-900 dark:bg-amber-950/40">
        <SetupChangeList changes={changes} />
      </div>
    </div>
  );
}

function CopyFingerprint({ fingerprint }: { fingerprint: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(fingerprint);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <code className="font-mono" title={fingerprint}>
        {shortHash(fingerprint)}
      </code>
      <button
        type="button"
        onClick={() => void copy()}
        className="rounded border border-zinc-300 px-1.5 py-0.5 text-[11px] font-medium hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-zinc-700 dark:hover:bg-zinc-800"
      >
        Copy fingerprint
      </button>
      <span role="status" className="text-[11px]">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed — select the text instead' : ''}
      </span>
    </span>
  );
}

/** How the agent was assembled for one run: model, instructions hash, tools, approvals, limits, middleware. */
export function RunSetup({ assembly, fingerprint }: { assembly: AssemblyDescriptor | null; fingerprint: string | null }) {
  if (!assembly) {
    return <p className="text-xs text-zinc-600 dark:text-zinc-400">No setup was recorded for this run.</p>;
  }
  const { limits } = assembly;
  const rows: Array<[string, string]> = [
    ['Model', assembly.model],
    ['Instructions', shortHash(assembly.instructionsHash)],
    ['Tools', formatSetupValue(assembly.tools)],
    ['Need approval', formatSetupValue(assembly.approvalTools)],
    // A server never listed has no known tools (ADR 057): said here rather than silently missing from Tools.
    ...(assembly.unavailable?.length ? [['Not offered', assembly.unavailable.map((u) => `tools of ${u.origin.replace(/^mcp:/, 'MCP server ')}: never listed`).join(', ')] as [string, string]] : []),
    // The attached skills by name and pack version (ADR 061); absent without skills.
    ...(assembly.skills?.length ? [['Skills', formatSetupValue(assembly.skills)] as [string, string]] : []),
    ['Turn limit', String(limits.maxTurns)],
    ['Time limit', `${limits.timeLimitMinutes} min`],
    ['Compaction at', `${limits.compactAtTokens.toLocaleString('en-US')} tokens`],
    ['Token budget', limits.tokenBudget === null ? 'none' : limits.tokenBudget.toLocaleString('en-US')],
    ['Middleware', assembly.middleware.length ? assembly.middleware.join(' → ') : 'none'],
    ['App version', assembly.appVersion],
  ];
  return (
    <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 text-xs text-zinc-700 dark:text-zinc-300">
      {rows.map(([term, value]) => (
        <div key={term} className="contents">
          <dt className="text-zinc-500 dark:text-zinc-400">{term}</dt>
          <dd className={cn('font-mono', plain)}>{value}</dd>
        </div>
      ))}
      {fingerprint ? (
        <div className="contents">
          <dt className="text-zinc-500 dark:text-zinc-400">Fingerprint</dt>
          <dd className={plain}>
            <CopyFingerprint fingerprint={fingerprint} />
          </dd>
        </div>
      ) : null}
    </dl>
  );
}
