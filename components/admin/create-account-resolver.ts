import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { createAccountSchema } from '@/lib/schemas/admin';

const formSchema = createAccountSchema.omit({ role: true }).extend({ admin: z.boolean() });
export type CreateAccountFormValues = z.input<typeof formSchema>;

/** Loaded on first use by the account form (lazyResolver): zod stays out of the admin page's first load. */
export const createAccountResolver = zodResolver(formSchema);
