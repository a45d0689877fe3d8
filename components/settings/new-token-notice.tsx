'use client';

import { SecretOnce } from '@/components/ui/secret-once';
import type { CreatedApiToken } from '@/lib/types/api-token';

/** The one time a token's plain value is shown. */
export function NewTokenNotice({ token, onDismiss }: { token: CreatedApiToken; onDismiss: () => void }) {
  return (
    <SecretOnce
      label="New API token"
      fieldLabel="New token"
      value={token.token}
      message={<>Token “{token.name}” created. Copy it now: it won’t be shown again.</>}
      onDismiss={onDismiss}
    />
  );
}
