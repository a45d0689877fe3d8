/** `GET /api/v1/tokens` response: the caller's unrevoked tokens (never their values). */
import type { ApiTokenView } from './api-token';

export type ApiTokenList = { tokens: ApiTokenView[] };
