import 'server-only';

// LangChain appends this line to the errors it gives a code (MODEL_RATE_LIMIT, MODEL_NOT_FOUND, …).
const LANGCHAIN_TROUBLESHOOTING = /\s*Troubleshooting URL: https:\/\/docs\.langchain\.com\/\S*\s*$/;

/**
 * A failed model call's message as the person reads it (the run's error, its note, each attempt's step): the
 * provider's own words, without the "Troubleshooting URL: https://docs.langchain.com/…" line LangChain adds, which
 * is about LangChain's code rather than the person's provider or settings.
 */
export function modelCallErrorText(err: unknown): string {
  const text = err instanceof Error ? err.message || err.name : String(err);
  return text.replace(LANGCHAIN_TROUBLESHOOTING, '');
}
