import { z } from 'zod';
import { LIMITS } from '../limits';
import { boundedText } from './common';
import { emailSchema, newPasswordSchema } from './auth';

const { expiryDays, defaultExpiryDays, note } = LIMITS.invitation;

/** An admin creates an account: the person signs in with this initial password. */
export const createAccountSchema = z
  .object({
    email: emailSchema,
    password: newPasswordSchema,
    name: boundedText({ maxChars: LIMITS.user.name.maxChars }).optional(),
    role: z.enum(['member', 'admin'], { error: 'Must be "member" or "admin"' }).optional(),
  })
  .strict();

/** An invitation link: how long it stays usable (one of LIMITS.invitation.expiryDays) and a note for the admin. */
export const createInvitationSchema = z
  .object({
    expiresInDays: z
      .number({ error: `Must be one of ${expiryDays.join(', ')}` })
      .refine((days) => (expiryDays as readonly number[]).includes(days), `Must be one of ${expiryDays.join(', ')}`)
      .default(defaultExpiryDays),
    note: boundedText({ maxChars: note.maxChars }).optional(),
  })
  .strict();

export type CreateAccountInput = z.input<typeof createAccountSchema>;
export type CreateInvitationInput = z.input<typeof createInvitationSchema>;
export type CreateAccountData = z.output<typeof createAccountSchema>;
export type CreateInvitationData = z.output<typeof createInvitationSchema>;

/**
 * What an account uses. `cost`: US dollars (decimal string) of its finished runs whose cost is known (ADR 048);
 * `unknownCostRuns`: finished runs whose cost is unknown, left out of `cost` rather than counted as $0.
 */
export type AccountUsage = { runs: number; modelTokens: number; cost: string; unknownCostRuns: number; activeJobs: number; agents: number; conversations: number };

/** One account as the admin page and GET /api/v1/admin/users show it. */
export type AdminAccountView = {
  id: string;
  email: string;
  name: string;
  role: 'admin' | 'member';
  disabledAt: string | null;
  createdAt: string;
  usage: AccountUsage;
};

export type InvitationStatus = 'open' | 'used' | 'expired' | 'revoked';

export type InvitationView = {
  id: string;
  note: string;
  status: InvitationStatus;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  usedBy: { id: string; email: string } | null;
  revokedAt: string | null;
};

/** The create answer: the only time the code (and the sign-up path carrying it) is shown. */
export type CreatedInvitation = InvitationView & { code: string; path: string };

