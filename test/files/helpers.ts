import { GET as convFilesGet, POST as convFilesPost } from '@/app/api/v1/conversations/[id]/files/route';
import { GET as teamFilesGet, POST as teamFilesPost } from '@/app/api/v1/teams/[id]/files/route';
import { GET as contentGet } from '@/app/api/v1/files/[fileId]/content/route';
import { GET as diffGet } from '@/app/api/v1/files/[fileId]/diff/route';
import { GET as previewGet } from '@/app/api/v1/files/[fileId]/preview/route';
import { DELETE as fileDelete, GET as fileGet } from '@/app/api/v1/files/[fileId]/route';
import type { ApiFile } from '@/lib/types/file';
import { makeUser } from '../support/users';

export type TestUser = Awaited<ReturnType<typeof makeUser>>;
export const BASE = 'http://localhost/api/v1';
const ctx = (params: Record<string, string>) => ({ params: Promise.resolve(params) }) as never;

type Body = BodyInit | null | undefined;

export function upload(user: { auth: Record<string, string> }, scope: 'team' | 'conversation', id: string, name: string | null, body: Body, headers: Record<string, string> = {}) {
  const url = `${BASE}/${scope === 'team' ? 'teams' : 'conversations'}/${id}/files${name === null ? '' : `?name=${encodeURIComponent(name)}`}`;
  const req = new Request(url, { method: 'POST', headers: { 'content-type': 'application/octet-stream', ...user.auth, ...headers }, body, duplex: 'half' } as RequestInit);
  return (scope === 'team' ? teamFilesPost : convFilesPost)(req, ctx({ id }));
}

export async function uploaded(user: TestUser, scope: 'team' | 'conversation', id: string, name: string, body: Body): Promise<ApiFile> {
  const res = await upload(user, scope, id, name, body);
  if (res.status !== 201) throw new Error(`upload ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { file: ApiFile }).file;
}

export function list(user: { auth: Record<string, string> }, scope: 'team' | 'conversation', id: string) {
  const req = new Request(`${BASE}/${scope === 'team' ? 'teams' : 'conversations'}/${id}/files`, { headers: user.auth });
  return (scope === 'team' ? teamFilesGet : convFilesGet)(req, ctx({ id }));
}

const get = (handler: (req: Request, c: never) => Promise<Response> | Response, path: string) => (user: { auth: Record<string, string> }, fileId: string, query = '') =>
  handler(new Request(`${BASE}/files/${fileId}${path}${query}`, { headers: user.auth }), ctx({ fileId }));

export const detail = get(fileGet, '');
export const content = get(contentGet, '/content');
export const preview = get(previewGet, '/preview');
export const diff = get(diffGet, '/diff');
export const remove = (user: { auth: Record<string, string> }, fileId: string, headers: Record<string, string> = {}) =>
  fileDelete(new Request(`${BASE}/files/${fileId}`, { method: 'DELETE', headers: { ...user.auth, ...headers } }), ctx({ fileId }));

/** A body that sends `first`, then fails: a client that disconnects midway. */
export function brokenBody(first: Uint8Array): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(first);
      } else controller.error(new Error('client went away'));
    },
  });
}

/** A tiny valid PNG (1×1). */
export const PNG = Uint8Array.from(
  Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64'),
);
