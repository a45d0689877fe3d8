/**
 * proxy.ts copies the requested path and query into this request header so server layouts, which are not
 * told their URL, can send a signed-out visitor to /sign-in?callbackUrl=<that path>.
 */
export const REQUEST_PATH_HEADER = 'x-ensemble-path';
