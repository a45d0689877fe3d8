/**
 * A GET Request whose `signal` is exactly the given one. `new Request(url, { signal })` makes a signal of its own
 * that follows the given one through a weakly held controller: once garbage collection takes that controller, an
 * abort never reaches the handler — a test that aborts would then flake under memory pressure. The server (Next)
 * hands handlers a signal it keeps alive; this stands in for that.
 */
export function requestWithSignal(url: string, headers: Record<string, string>, signal: AbortSignal): Request {
  const req = new Request(url, { headers });
  Object.defineProperty(req, 'signal', { value: signal });
  return req;
}
