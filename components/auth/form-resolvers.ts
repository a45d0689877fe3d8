import { zodResolver } from '@hookform/resolvers/zod';
import { signInSchema, signUpSchema } from '@/lib/schemas/auth';

/** Loaded on first use by the sign-in and sign-up forms (lazyResolver): zod stays out of their first load. */
export const signInResolver = zodResolver(signInSchema);
export const signUpResolver = zodResolver(signUpSchema);
