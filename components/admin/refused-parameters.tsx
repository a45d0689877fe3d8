/**
 * Part of a provider's status: the optional request parameters its server refused, which requests now leave out
 * (adaptive requests, ADR 042). Without `stream_options` the server is not asked for usage, so runs' usage may be
 * unreported. Learned per server process, so a freshly started process shows none until it meets a refusal.
 */
export function RefusedParameters({ parameters }: { parameters: string[] }) {
  if (parameters.length === 0) return null;
  return (
    <p className="text-xs text-amber-800 dark:text-amber-300">
      Refused by the server, so left out of requests:{' '}
      {parameters.map((p, i) => (
        <span key={p}>
          {i > 0 ? ', ' : null}
          <code>{p}</code>
        </span>
      ))}
      {parameters.includes('stream_options') ? ' (usage may then go unreported)' : null}
    </p>
  );
}
