'use client';

import { createActionsContext } from '@/components/ui/actions-context';
import type { ActionResult } from '@/lib/action-result';
import type { CreatedApiToken, CreateTokenInput } from '@/lib/schemas/auth';

/** The Settings page's token actions (app/(app)/settings/actions.ts), provided by app/(app)/settings/layout.tsx. */
export type SettingsActions = {
  createToken: (input: CreateTokenInput) => Promise<ActionResult<CreatedApiToken>>;
  revokeToken: (id: string) => Promise<ActionResult<null>>;
};

const context = createActionsContext<SettingsActions>('Settings');
export const SettingsActionsProvider = context.Provider;
export const useSettingsActions = context.useActions;
