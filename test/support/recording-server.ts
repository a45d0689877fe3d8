/**
 * The part every fake server of a send shares: it records each call, lets `handle` make what the call asks for
 * (idempotently by key, as the real server does), and with `failOnce(error)` throws on the next call *after* handling
 * it — a response lost on the way back — so a test sees whether the retry reuses the key.
 */
export function recordingServer<Args extends unknown[], Call, Answer>(
  record: (...args: Args) => Call,
  handle: (call: Call) => Answer,
) {
  const calls: Call[] = [];
  let failNext: unknown = null;
  return {
    calls,
    failOnce(error: unknown) {
      failNext = error;
    },
    async send(...args: Args): Promise<Answer> {
      const call = record(...args);
      calls.push(call);
      const answer = handle(call);
      if (failNext) {
        const error = failNext;
        failNext = null;
        throw error;
      }
      return answer;
    },
  };
}
