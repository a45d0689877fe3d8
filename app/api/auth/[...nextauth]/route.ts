import { handlers } from '@/server/auth/config';
import { limitCredentialsSignIn } from '@/server/auth/rate-limit';
import { noCredentials, otherMethods } from '@/server/http/method-not-allowed';
import { boundedBody } from '@/server/http/route';

// next-auth's endpoints (csrf, session, callback/credentials, signout). The credentials callback is rate limited:
// while the account or the client address has five recent failures it answers 429 with Retry-After.
export const GET = handlers.GET;
// Every POST body (sign-in, sign-out) is read within LIMITS.requestBodyBytes first: 413 past it, before the limiter
// or next-auth buffer anything.
export const POST = boundedBody(limitCredentialsSignIn(handlers.POST));

// Any other method: the API's JSON 405, asking for no credentials, as next-auth's own endpoints don't.
export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST }, noCredentials);
