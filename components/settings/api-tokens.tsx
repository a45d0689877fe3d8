'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { PageSection } from '@/components/ui/page-section';
import { Alert, Badge, EmptyState, Spinner } from '@/components/ui/misc';
import { Time } from '@/components/ui/time';
import { LIMITS } from '@/lib/limits';
import type { ApiTokenView, CreatedApiToken } from '@/lib/types/api-token';
import { CreateTokenForm } from './create-token-form';
import { NewTokenNotice } from './new-token-notice';
import { RevokeTokenDialog } from './revoke-token-dialog';
import { tokenListQuery } from './queries';

const MAX = LIMITS.apiToken.perUser;

/** Personal API tokens: list (name, access, prefix, created, last used, expiry), create (shown once), revoke (with
 * confirmation). */
export function ApiTokens() {
  const tokens = useQuery(tokenListQuery());
  const [created, setCreated] = useState<CreatedApiToken | null>(null);
  const [revoking, setRevoking] = useState<ApiTokenView | null>(null);
  const atLimit = (tokens.data?.filter((t) => !t.expired).length ?? 0) >= MAX;

  return (
    <PageSection
      id="api-tokens"
      title="API tokens"
      description={
        <>
          Scripts use a token to call the HTTP API as you: send{' '}
          <code className="rounded bg-zinc-100 px-1 py-0.5 text-xs break-all dark:bg-zinc-800">Authorization: Bearer &lt;token&gt;</code>. You can
          have up to {MAX} tokens.
        </>
      }
    >

      {created ? <NewTokenNotice token={created} onDismiss={() => setCreated(null)} /> : null}
      <CreateTokenForm onCreated={setCreated} disabled={atLimit} />
      {atLimit ? <Alert tone="info">You have {MAX} tokens, the most allowed. Revoke one to create another.</Alert> : null}

      {tokens.isPending ? (
        <Spinner label="Loading tokens" />
      ) : tokens.isError ? (
        <Alert
          action={
            <Button size="sm" variant="secondary" onClick={() => tokens.refetch()}>
              Retry
            </Button>
          }
        >
          Could not load your tokens: {tokens.error.message}
        </Alert>
      ) : tokens.data.length === 0 ? (
        <EmptyState title="No API tokens yet">Create one above to use the API from a script.</EmptyState>
      ) : (
        <ul aria-label="Your API tokens" className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {tokens.data.map((token) => (
            <li key={token.id} className="flex flex-wrap items-center justify-between gap-3 p-3">
              <div className="min-w-0 flex-1">
                <p className="flex flex-wrap items-center gap-2 font-medium break-words text-zinc-900 dark:text-zinc-100">
                  {token.name}
                  <Badge>{token.scope === 'read' ? 'Read only' : 'Full access'}</Badge>
                  {token.expired ? <Badge tone="danger">Expired</Badge> : null}
                </p>
                <p className="mt-0.5 flex flex-wrap gap-x-3 gap-y-1 text-xs text-zinc-600 dark:text-zinc-400">
                  <span className="font-mono">{token.prefix}…</span>
                  <span>
                    Created <Time iso={token.createdAt} format="date" />
                  </span>
                  <span>{token.lastUsedAt ? <>Last used <Time iso={token.lastUsedAt} format="relative" /></> : 'Never used'}</span>
                  <span>
                    {token.expiresAt === null ? (
                      'Never expires'
                    ) : token.expired ? (
                      <>
                        Expired <Time iso={token.expiresAt} format="date" />
                      </>
                    ) : (
                      <>
                        Expires <Time iso={token.expiresAt} format="date" />
                      </>
                    )}
                  </span>
                </p>
              </div>
              <Button variant="secondary" size="sm" onClick={() => setRevoking(token)} aria-label={`Revoke ${token.name}`}>
                Revoke
              </Button>
            </li>
          ))}
        </ul>
      )}
      <RevokeTokenDialog token={revoking} onClose={() => setRevoking(null)} />
    </PageSection>
  );
}
