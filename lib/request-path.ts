/**
 * proxy.ts copies the requested path and query into this request header so server layouts, which are not
 * told their URL, can send a signed-out visitor to /sign-in?callbackUrl=<that path>.
 */
export const REQUEST_PATH_HEADER = 'x-ensemble-path';

/** proxy.ts puts this request's CSP nonce here; the root layout hands it to next-themes' inline script. */
export const NONCE_HEADER = 'x-nonce';
