import { handlers } from '@/server/auth/config';
import { limitCredentialsSignIn } from '@/server/auth/rate-limit';

// next-auth's endpoints (csrf, session, callback/credentials, signout). The credentials callback is rate limited:
// while the account or the client address has five recent failures it answers 429 with Retry-After.
export const GET = handlers.GET;
export const POST = limitCredentialsSignIn(handlers.POST);
