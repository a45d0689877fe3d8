'use client';

import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { DisclosureButton } from './disclosure-button';
import { runDetailQuery } from './queries';
import { RunSetup, SetupChangeList } from './run-setup';
import { RunSteps } from './run-steps';
import { RunTotals } from './run-totals';

/**
 * Everything recorded about one run: its token totals, how the agent was assembled (and what changed since the
 * previous run), and its steps, live while it works. Used in a job card's details and under a conversation turn.
 */
export function RunDetails({ runId, heading = 'Steps' }: { runId: string; heading?: string }) {
  const run = useQuery(runDetailQuery(runId)).data?.run;
  const [setupOpen, setSetupOpen] = useState(false);
  const setupId = useId();
  const changes = run?.assemblyChanges ?? [];

  return (
    <section aria-label={heading} className="min-w-0 space-y-2">
      <div className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1">
        <h4 className="text-xs font-semibold text-zinc-800 dark:text-zinc-200">{heading}</h4>
        {run ? <RunTotals totals={run} /> : null}
      </div>
      {run ? (
        <div>
          <DisclosureButton open={setupOpen} controls={setupId} onToggle={() => setSetupOpen((v) => !v)}>
            Setup{changes.length > 0 ? ' (changed)' : ''}
          </DisclosureButton>
          <div id={setupId} hidden={!setupOpen} className="mt-1 space-y-2 rounded-md border border-zinc-200 p-2 dark:border-zinc-800">
            <RunSetup assembly={run.assembly} fingerprint={run.fingerprint} />
            {changes.length > 0 ? (
              <div>
                <p className="mb-1 text-xs font-medium text-amber-800 dark:text-amber-300">Changed since the previous run</p>
                <SetupChangeList changes={changes} />
              </div>
            ) : null}
          </div>
        </div>
      ) : null}
      <RunSteps runId={runId} />
    </section>
  );
}
