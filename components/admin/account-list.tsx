'use client';

import { CostText } from '@/components/ui/cost-text';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Alert, Badge } from '@/components/ui/misc';
import type { AdminAccountView } from '@/lib/schemas/admin';
import { Time } from '@/components/ui/time';
import { enableAccountAction } from '@/app/(app)/admin/actions';
import { useActionCall } from './use-action-call';
import { DisableAccountDialog } from './disable-account-dialog';

const number = new Intl.NumberFormat('en-US');

/** Every account with its role, state and usage; disable (with confirmation) or re-enable. Not yourself. */
export function AccountList({ accounts, currentUserId }: { accounts: AdminAccountView[]; currentUserId: string }) {
  const router = useRouter();
  const [disabling, setDisabling] = useState<AdminAccountView | null>(null);
  const [enabling, setEnabling] = useState<string | null>(null);
  const { call, error } = useActionCall();

  const enable = async (account: AdminAccountView) => {
    setEnabling(account.id);
    const result = await call(() => enableAccountAction(account.id));
    setEnabling(null);
    if (result.ok) router.refresh();
  };

  return (
    <div className="space-y-3">
      {error ? <Alert>{error}</Alert> : null}
      <ul aria-label="Accounts" className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
        {accounts.map((account) => {
          const self = account.id === currentUserId;
          const label = account.name ? `${account.name} (${account.email})` : account.email;
          return (
            <li key={account.id} aria-label={account.email} className="flex flex-wrap items-start justify-between gap-3 p-3">
              <div className="min-w-0 flex-1 space-y-1">
                <p className="flex flex-wrap items-center gap-2">
                  <span className="min-w-0 font-medium break-all text-zinc-900 dark:text-zinc-100">{account.email}</span>
                  {account.role === 'admin' ? <Badge tone="info">Admin</Badge> : null}
                  {self ? <Badge>You</Badge> : null}
                  {account.disabledAt ? <Badge tone="danger">Disabled</Badge> : null}
                </p>
                <p className="text-xs break-words text-zinc-600 dark:text-zinc-400">
                  {account.name ? <>{account.name} · </> : null}
                  Joined <Time iso={account.createdAt} format="date" />
                  {account.disabledAt ? (
                    <>
                      {' '}
                      · disabled <Time iso={account.disabledAt} format="date" />
                    </>
                  ) : null}
                </p>
                <dl aria-label={`Usage of ${account.email}`} className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-600 dark:text-zinc-400">
                  <Figure term="Runs" value={account.usage.runs} />
                  <Figure term="Model tokens" value={account.usage.modelTokens} />
                  <div className="flex gap-1">
                    <dt>Cost</dt>
                    <dd className="font-medium text-zinc-900 tabular-nums dark:text-zinc-100">
                      <CostText usd={account.usage.cost} unknownRuns={account.usage.unknownCostRuns} />
                    </dd>
                  </div>
                  <Figure term="Active jobs" value={account.usage.activeJobs} />
                  <Figure term="Agents" value={account.usage.agents} />
                  <Figure term="Conversations" value={account.usage.conversations} />
                </dl>
              </div>
              {self ? null : account.disabledAt ? (
                <Button
                  variant="secondary"
                  size="sm"
                  onClick={() => enable(account)}
                  disabled={enabling === account.id}
                  aria-label={`Enable ${label}`}
                >
                  {enabling === account.id ? 'Enabling…' : 'Enable'}
                </Button>
              ) : (
                <Button variant="secondary" size="sm" onClick={() => setDisabling(account)} aria-label={`Disable ${label}`}>
                  Disable
                </Button>
              )}
            </li>
          );
        })}
      </ul>
      <DisableAccountDialog
        account={disabling}
        onClose={() => setDisabling(null)}
        onDone={() => {
          setDisabling(null);
          router.refresh();
        }}
      />
    </div>
  );
}

function Figure({ term, value }: { term: string; value: number }) {
  return (
    <div className="flex gap-1">
      <dt>{term}</dt>
      <dd className="font-medium text-zinc-900 tabular-nums dark:text-zinc-100">{number.format(value)}</dd>
    </div>
  );
}
