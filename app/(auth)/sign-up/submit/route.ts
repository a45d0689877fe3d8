import { authFormPost } from '@/server/auth/form-post';
import { submitSignUp } from '@/server/auth/form-submissions';
import { noCredentials, otherMethods } from '@/server/http/method-not-allowed';

// Never prerendered at build: its GET is the 405 answer, which names the request.
export const dynamic = 'force-dynamic';

/** POST /sign-up/submit: the sign-up page's form (no JavaScript on that page). 303 on, or 303 back with the reason. */
export const POST = authFormPost('sign-up', submitSignUp);
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST }, noCredentials);
