import { z } from 'zod';
import { LIMITS } from '../limits';
import { API_TOKEN_SCOPES } from '../types/api-token';
import { charCount } from '../text-bounds';
import { boundedText } from './common';

const { email: emailLimit, password: passwordLimit, name: nameLimit } = LIMITS.user;

/** Words the sign-in and sign-up screens and their server actions share. */
export const AUTH_MESSAGES = {
  /** Never says which of the two was wrong. */
  invalidCredentials: 'Invalid email or password',
  signUpDisabled: 'Sign-up is closed on this server. Ask its admin for an invitation link.',
  invitationInvalid: 'This invitation link is not valid any more (it was used, revoked or has expired). Ask the admin for a new one.',
} as const;

/** Trimmed, lower-cased, checked for shape: the same value the server stores and compares. */
export const emailSchema = z
  .string({ error: 'Enter your email' })
  .trim()
  .toLowerCase()
  .min(1, 'Enter your email')
  .max(emailLimit.maxChars, `Must be at most ${emailLimit.maxChars} characters`)
  .pipe(z.email('Enter a valid email address'));

/** A new password: at least 8 characters (code points), at most 200. Never trimmed. */
export const newPasswordSchema = boundedText({ maxChars: passwordLimit.maxChars }).superRefine((value, ctx) => {
  if (charCount(value) < passwordLimit.minChars) {
    ctx.addIssue({ code: 'custom', message: `Must be at least ${passwordLimit.minChars} characters` });
  }
});

export const signUpSchema = z
  .object({
    email: emailSchema,
    password: newPasswordSchema,
    name: boundedText({ maxChars: nameLimit.maxChars }).optional(),
  })
  .strict();

/** Sign-in only checks that something was typed: whether it matches is the server's answer, never a field error. */
export const signInSchema = z
  .object({
    email: emailSchema,
    password: z
      .string({ error: 'Enter your password' })
      .min(1, 'Enter your password')
      .max(passwordLimit.maxChars, `Must be at most ${passwordLimit.maxChars} characters`),
  })
  .strict();

/** A password typed again to confirm who is asking (change password, create a token): only checked for presence. */
export const currentPasswordSchema = z
  .string({ error: 'Enter your password' })
  .min(1, 'Enter your password')
  .max(passwordLimit.maxChars, `Must be at most ${passwordLimit.maxChars} characters`);

/** Token lifetimes offered: 30 or 90 days, or null for a token that never expires. */
export const TOKEN_EXPIRY_DAYS = [30, 90] as const;
export const tokenExpirySchema = z
  .union([z.literal(30), z.literal(90), z.null()], { error: 'Choose 30, 90 or null (never)' })
  .default(null);

/** What the token may do (ADR 041): 'read' answers 403 read_only_token on any write. The API's default is 'full', so a
 * token a script creates without naming a scope can do whatever the API allows; the Settings form preselects 'read'. */
export const tokenScopeSchema = z.enum(API_TOKEN_SCOPES, { error: 'Choose "read" or "full"' }).default('full');

/** Creating a token asks for the password again (a borrowed session alone can't mint long-lived credentials). */
export const createTokenSchema = z
  .object({
    name: boundedText({ minChars: LIMITS.apiToken.name.minChars, maxChars: LIMITS.apiToken.name.maxChars }),
    expiresInDays: tokenExpirySchema,
    scope: tokenScopeSchema,
    password: currentPasswordSchema,
  })
  .strict();

/** POST /api/v1/me/password. */
export const changePasswordSchema = z.object({ currentPassword: currentPasswordSchema, newPassword: newPasswordSchema }).strict();

/** The Settings form also asks for the new password twice. */
export const changePasswordFormSchema = z
  .object({ currentPassword: currentPasswordSchema, newPassword: newPasswordSchema, confirmPassword: z.string() })
  .strict()
  .refine((v) => v.newPassword === v.confirmPassword, { path: ['confirmPassword'], message: 'The two new passwords differ' });

export type SignUpInput = z.input<typeof signUpSchema>;
export type SignInInput = z.input<typeof signInSchema>;
export type CreateTokenInput = z.input<typeof createTokenSchema>;

/**
 * The path to return to after signing in, or null. Only same-origin relative paths pass:
 * "//host", "/\\host", absolute URLs and control characters are refused, so the query can't send anyone elsewhere.
 */
export function safeCallbackPath(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2_000) return null;
  if (!value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return null;
  if (/[\u0000-\u001f\u007f]/.test(value)) return null;
  const base = 'http://ensemble.invalid';
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return null;
  }
  if (url.origin !== base) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}
