/** What an API token may do (ADR 041): 'read' only uses safe methods (GET, HEAD); 'full' may also write. */
export const API_TOKEN_SCOPES = ['read', 'full'] as const;
export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];
