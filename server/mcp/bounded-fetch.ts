import 'server-only';
import { LIMITS } from '@/lib/limits';

/**
 * A fetch whose response bodies are bounded per message (LIMITS.mcp.messageBytes): a JSON body as a whole, an event
 * stream per event (the bytes between blank lines). Past the bound the body errors, so the HTTP transport fails the
 * request instead of buffering without end.
 */
export function boundedFetch(inner: typeof fetch, maxBytes: number = LIMITS.mcp.messageBytes): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const res = await inner(input, init);
    if (!res.body) return res;
    const perEvent = (res.headers.get('content-type') ?? '').includes('text/event-stream');
    let size = 0;
    let lastByte = -1;
    const limit = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (perEvent) {
          for (const byte of chunk) {
            // A blank line (LF LF, or CR LF CR LF, whose last two bytes are LF-adjacent) ends an event.
            if (byte === 0x0a && lastByte === 0x0a) size = 0;
            else if (byte !== 0x0d) {
              size++;
              lastByte = byte;
              if (size > maxBytes) return controller.error(new Error(`The MCP server sent a message larger than ${maxBytes} bytes`));
              continue;
            }
            if (byte === 0x0a) lastByte = byte;
          }
        } else {
          size += chunk.byteLength;
          if (size > maxBytes) return controller.error(new Error(`The MCP server sent a message larger than ${maxBytes} bytes`));
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(res.body.pipeThrough(limit), { status: res.status, statusText: res.statusText, headers: res.headers });
  }) as typeof fetch;
}
