import 'server-only';

// LangChain appends this line to the errors it gives a code (MODEL_RATE_LIMIT, MODEL_NOT_FOUND, …).
const LANGCHAIN_TROUBLESHOOTING = /\s*Troubleshooting URL: https:\/\/docs\.langchain\.com\/\S*\s*$/;
// What the OpenAI and Anthropic clients (and fetch, under Ollama's) say for any failed connection; the reason is in
// its causes.
const BARE_CONNECTION_ERROR = /^(Connection error\.?|fetch failed)$/;
// A status and then an HTML page: the clients quote a non-JSON error body whole (a proxy's or web server's 404).
const HTML_ANSWER = /^(\d{3}) \s*<(?:!doctype|html|head|body|title|h1|center|p)\b/i;

/**
 * A failed model call's message as the person reads it (the run's error, its note, each attempt's step): the
 * provider's own words, without the "Troubleshooting URL: https://docs.langchain.com/…" line LangChain adds, which
 * is about LangChain's code rather than the person's provider or settings; a bare "Connection error." or "fetch
 * failed" says what its causes say went wrong (ECONNREFUSED, ENOTFOUND, …), as the Admin page's connection test does;
 * an error body given whole as JSON gives its message, and one that is a web page says so rather than quoting it.
 */
export function modelCallErrorText(err: unknown): string {
  const text = (err instanceof Error ? err.message || err.name : String(err)).replace(LANGCHAIN_TROUBLESHOOTING, '');
  const code = BARE_CONNECTION_ERROR.test(text.trim()) ? causeCode(err) : undefined;
  if (code) return `Could not connect to the model provider (${code}).`;
  const page = HTML_ANSWER.exec(text);
  if (page) return `${page[1]}: the server answered with a web page, not the provider's API (check the provider's base URL)`;
  return nestedApiMessage(err, text) ?? text;
}


/**
 * Anthropic's error body nests its message (`{ type: 'error', error: { type, message } }`), so its client's message
 * is the status and the whole body as JSON; the status and that message are what the person needs.
 */
function nestedApiMessage(err: unknown, text: string): string | undefined {
  const e = err as { status?: unknown; error?: { error?: { message?: unknown } } } | null;
  const message = e?.error?.error?.message;
  return typeof e?.status === 'number' && typeof message === 'string' && text.startsWith(`${e.status} {`) ? `${e.status} ${message}` : undefined;
}

/** The first system error code (ECONNREFUSED, ENOTFOUND, UND_ERR_…) among the error's causes, a few levels deep. */
function causeCode(err: unknown): string | undefined {
  let current = (err as { cause?: unknown } | null)?.cause;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
