import type { AdminActionResult, AdminAccountView, CreatedInvitation } from '@/lib/schemas/admin';

/** The admin page's server actions, handed to its client components as props (components never import app/). */
export type AdminActions = {
  createAccount: (input: unknown) => Promise<AdminActionResult<AdminAccountView>>;
  disableAccount: (id: string) => Promise<AdminActionResult<Pick<AdminAccountView, 'id' | 'disabledAt'>>>;
  enableAccount: (id: string) => Promise<AdminActionResult<Pick<AdminAccountView, 'id' | 'disabledAt'>>>;
  createInvitation: (input: unknown) => Promise<AdminActionResult<CreatedInvitation>>;
  revokeInvitation: (id: string) => Promise<AdminActionResult<null>>;
};

/** A thrown action (network, server crash) becomes the same shape as a refused one, so forms show one message. */
export async function runAction<T>(call: () => Promise<AdminActionResult<T>>): Promise<AdminActionResult<T>> {
  try {
    return await call();
  } catch {
    return { ok: false, error: { code: 'network_error', message: 'Could not reach the server. Check your connection and try again.' } };
  }
}
