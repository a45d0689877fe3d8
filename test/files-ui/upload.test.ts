import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { isAbort, uploadError, uploadErrorMessage, uploadFile, type UploadRequest } from '@/components/files/upload';

type Listener = (e: { loaded: number; total: number; lengthComputable: boolean }) => void;

/** A stand-in XMLHttpRequest: records what was opened and sent, and lets the test answer, fail or abort it. */
class FakeRequest {
  opened: [string, string] | null = null;
  headers: Record<string, string> = {};
  body: unknown = null;
  aborted = false;
  status = 0;
  responseText = '';
  private listeners = new Map<string, Array<() => void>>();
  private progress: Listener[] = [];
  upload = { addEventListener: (_type: string, fn: Listener) => this.progress.push(fn) };
  addEventListener(type: string, fn: () => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  open(method: string, url: string) {
    this.opened = [method, url];
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  send(body: unknown) {
    this.body = body;
  }
  abort() {
    this.aborted = true;
    this.fire('abort');
  }
  fire(type: string) {
    for (const fn of this.listeners.get(type) ?? []) fn();
  }
  sendProgress(loaded: number, total: number) {
    for (const fn of this.progress) fn({ loaded, total, lengthComputable: true });
  }
  answer(status: number, body: unknown) {
    this.status = status;
    this.responseText = typeof body === 'string' ? body : JSON.stringify(body);
    this.fire('load');
  }
}

const fileOf = (name: string, text: string) => Object.assign(new Blob([text]), { name });
const stored = { id: 'f1', name: '報告 🎉.md', size: 5, mediaType: 'text/markdown', revision: 1 };

function start(name = '報告 🎉.md', signal?: AbortSignal) {
  const fake = new FakeRequest();
  const progress: number[] = [];
  const promise = uploadFile({ kind: 'team', id: 't1' }, fileOf(name, 'hello'), { signal, onProgress: (loaded) => progress.push(loaded) }, () => fake as unknown as UploadRequest);
  return { fake, progress, promise };
}

describe('uploadFile', () => {
  it('POSTs the raw bytes to the scope with the name in the query, reports progress and resolves with the stored file', async () => {
    const { fake, progress, promise } = start();
    expect(fake.opened).toEqual(['POST', `/api/v1/teams/t1/files?name=${encodeURIComponent('報告 🎉.md').replace(/%20/g, '+')}`]);
    expect(fake.body).toBeInstanceOf(Blob);
    fake.sendProgress(2, 5);
    fake.sendProgress(5, 5);
    fake.answer(201, { file: stored });
    await expect(promise).resolves.toEqual(stored);
    expect(progress).toEqual([2, 5]);
  });

  it('rejects a 413 with the server’s field-named words', async () => {
    const { fake, promise } = start();
    fake.answer(413, { error: { code: 'too_large', message: 'Too large', fields: { file: 'A file is at most 25 MB.' } } });
    const err = await promise.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(413);
    expect(uploadErrorMessage(err)).toBe('A file is at most 25 MB.');
  });

  it('says the limit in words for a 413 whose body was cut off', () => {
    const err = uploadError(413, '', 26 * 1024 * 1024);
    expect(err.status).toBe(413);
    expect(uploadErrorMessage(err)).toBe('This file (26 MiB) is larger than the upload limit.');
  });

  it('a cancel aborts the request and rejects with an AbortError, not a failure to show', async () => {
    const controller = new AbortController();
    const { fake, promise } = start('a.txt', controller.signal);
    controller.abort();
    const err = await promise.catch((e: unknown) => e);
    expect(fake.aborted).toBe(true);
    expect(isAbort(err)).toBe(true);
  });

  it('never opens a request for an upload cancelled before it started', async () => {
    const controller = new AbortController();
    controller.abort();
    const fake = new FakeRequest();
    const err = await uploadFile({ kind: 'conversation', id: 'c1' }, fileOf('a', 'x'), { signal: controller.signal }, () => fake as unknown as UploadRequest).catch((e: unknown) => e);
    expect(isAbort(err)).toBe(true);
    expect(fake.opened).toBeNull();
  });

  it('a connection lost mid-upload is a network error in words', async () => {
    const { fake, promise } = start();
    fake.fire('error');
    const err = await promise.catch((e: unknown) => e);
    expect((err as ApiError).code).toBe('network_error');
    expect(uploadErrorMessage(err)).toMatch(/interrupted/);
  });

  it('another owner’s scope answers 404 like a missing one, and that is what is said', async () => {
    const { fake, promise } = start();
    fake.answer(404, { error: { code: 'not_found', message: 'Team not found' } });
    const err = await promise.catch((e: unknown) => e);
    expect(uploadErrorMessage(err)).toBe('Team not found');
  });
});
