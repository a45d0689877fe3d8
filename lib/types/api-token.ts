/** What an API token may do (ADR 041): 'read' only uses safe methods (GET, HEAD); 'full' may also write. */
export const API_TOKEN_SCOPES = ['read', 'full'] as const;
export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];

/** An API token as the API returns it (the plain token only appears once, in the create response). */
export type ApiTokenView = {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** Null: never expires. */
  expiresAt: string | null;
  /** Past its expiry when listed: it answers 401 and is kept in the list (marked) until revoked. */
  expired: boolean;
  /** 'read': safe methods only (403 read_only_token on a write); 'full': everything its owner may do. */
  scope: ApiTokenScope;
};
export type CreatedApiToken = ApiTokenView & { token: string };
