import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { createTokenSchema, currentPasswordSchema } from '@/lib/schemas/auth';

/** The form's own shape (a select gives strings); converted to the API's body on submit. */
const formSchema = z.object({
  name: createTokenSchema.shape.name,
  expiry: z.enum(['30', '90', 'never']),
  scope: z.enum(['read', 'full'], { error: 'Choose what the token may do' }),
  password: currentPasswordSchema,
});
export type CreateTokenFormValues = z.input<typeof formSchema>;

/** Loaded on first use by the token form (lazyResolver): zod stays out of the settings page's first load. */
export const createTokenResolver = zodResolver(formSchema);
