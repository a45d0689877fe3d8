import { ApiError } from '@/lib/api-client';
import type { ApiFile, FileScope } from '@/lib/types/file';
import { formatBytes } from '@/lib/byte-size';
import { scopeFilesPath } from './file-format';

export type UploadOptions = {
  /** Bytes sent so far, from the request's upload progress events. */
  onProgress?: (loaded: number, total: number) => void;
  /** Aborting cancels the upload: the request is cut and the promise rejects with an AbortError. */
  signal?: AbortSignal;
};

/** The part of XMLHttpRequest an upload uses (a test hands in its own). */
export type UploadRequest = Pick<XMLHttpRequest, 'open' | 'send' | 'abort' | 'setRequestHeader' | 'status' | 'responseText'> & {
  upload: Pick<XMLHttpRequestUpload, 'addEventListener'>;
  addEventListener: XMLHttpRequest['addEventListener'];
};

/** The error body's refusal as an ApiError: a 413 in words even when the body was cut off with the connection. */
export function uploadError(status: number, responseText: string, size: number): ApiError {
  let error: { code?: string; message?: string; fields?: Record<string, string> } | undefined;
  try {
    error = (JSON.parse(responseText) as { error?: typeof error }).error;
  } catch {
    error = undefined;
  }
  if (status === 413 && !error?.message) {
    return new ApiError(413, 'too_large', `This file (${formatBytes(size)}) is larger than the upload limit.`);
  }
  return new ApiError(status, error?.code ?? 'http_error', error?.message ?? `Upload failed (${status})`, error?.fields ?? {});
}

/** What the attach control and the Files panel say for a failed upload: the refused field's words first. */
export function uploadErrorMessage(err: unknown): string {
  if (!(err instanceof ApiError)) return 'The upload failed; try again.';
  const field = Object.values(err.fields)[0];
  return field ?? err.message;
}

/**
 * POST <scope>/files?name=… with the file's bytes as the body: a streamed request, not a server action (an action
 * would buffer the whole file), through XMLHttpRequest because fetch reports no upload progress. The browser sends
 * the page's Origin and session cookie; resolves with the stored file (201).
 */
export function uploadFile(
  scope: FileScope,
  file: Blob & { name: string },
  { onProgress, signal }: UploadOptions = {},
  makeRequest: () => UploadRequest = () => new XMLHttpRequest(),
): Promise<ApiFile> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new DOMException('The upload was cancelled.', 'AbortError'));
      return;
    }
    const xhr = makeRequest();
    const onAbort = () => xhr.abort();
    const settle = () => signal?.removeEventListener('abort', onAbort);
    xhr.upload.addEventListener('progress', (e) => onProgress?.(e.loaded, e.lengthComputable ? e.total : file.size));
    xhr.addEventListener('load', () => {
      settle();
      if (xhr.status === 201 || xhr.status === 200) {
        try {
          resolve((JSON.parse(xhr.responseText) as { file: ApiFile }).file);
        } catch {
          reject(new ApiError(xhr.status, 'bad_response', 'The server’s answer to the upload could not be read.'));
        }
        return;
      }
      reject(uploadError(xhr.status, xhr.responseText, file.size));
    });
    xhr.addEventListener('error', () => {
      settle();
      // A server that refuses a large body early may close the connection before the browser reads the answer.
      reject(new ApiError(0, 'network_error', 'The upload was interrupted. Check your connection and try again.'));
    });
    xhr.addEventListener('abort', () => {
      settle();
      reject(new DOMException('The upload was cancelled.', 'AbortError'));
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    xhr.open('POST', `${scopeFilesPath(scope)}?${new URLSearchParams({ name: file.name })}`);
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.send(file);
  });
}

export const isAbort = (err: unknown) => err instanceof DOMException && err.name === 'AbortError';
