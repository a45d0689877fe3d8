import 'server-only';

/**
 * A response body that reads one chunk of `chunks` per pull (high-water mark 0): a slow reader holds back the
 * reading, not the server's memory. Text chunks are sent as UTF-8; a failed read errors the stream (the client sees
 * a cut body, never a complete-looking one); a client that goes away ends the iterator, so its `finally` blocks run.
 */
export function pullStream(chunks: AsyncIterator<string | Uint8Array>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const step = await chunks.next();
          if (step.done) controller.close();
          else controller.enqueue(typeof step.value === 'string' ? encoder.encode(step.value) : step.value);
        } catch (err) {
          controller.error(err);
        }
      },
      async cancel() {
        await chunks.return?.(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
