import type { ReactNode } from 'react';
import { SettingsActionsProvider } from '@/components/settings/settings-actions';
import { createTokenAction, revokeTokenAction } from './actions';

/** Hands the Settings page's token actions to its client components (components never import app/). */
export default function SettingsLayout({ children }: { children: ReactNode }) {
  return <SettingsActionsProvider actions={{ createToken: createTokenAction, revokeToken: revokeTokenAction }}>{children}</SettingsActionsProvider>;
}
