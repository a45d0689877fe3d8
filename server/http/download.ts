import 'server-only';
import { pullStream } from './pull-stream';

/** A document made while it is downloaded: the export of a team or a batch. */
export type StreamedDownload = { contentType: string; contentDisposition: string; chunks: AsyncIterator<string | Uint8Array> };

/** An export as an attachment, streamed as the client reads; never cached, never sniffed into something runnable. */
export function downloadResponse(doc: StreamedDownload): Response {
  return new Response(pullStream(doc.chunks), {
    headers: {
      'content-type': doc.contentType,
      'content-disposition': doc.contentDisposition,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
  });
}
