import { zipSync, type Zippable } from 'fflate';
import { GET as listGet, POST as createPost } from '@/app/api/v1/skills/route';
import { POST as importPost } from '@/app/api/v1/skills/import/route';
import { DELETE as skillDelete, GET as skillGet, PATCH as skillPatch } from '@/app/api/v1/skills/[id]/route';
import { GET as fileGet } from '@/app/api/v1/skills/[id]/files/[...path]/route';
import type { SkillView } from '@/lib/types/skill';
import { makeUser } from '../support/users';

export type TestUser = Awaited<ReturnType<typeof makeUser>>;
const BASE = 'http://localhost/api/v1/skills';
const ctx = (params: Record<string, unknown>) => ({ params: Promise.resolve(params) }) as never;
type Auth = { auth: Record<string, string> };
const jsonInit = (method: string, user: Auth, body: unknown): RequestInit => ({ method, headers: { 'content-type': 'application/json', ...user.auth }, body: JSON.stringify(body) });

export const list = (user: Auth) => listGet(new Request(BASE, { headers: user.auth }), ctx({}));
export const create = (user: Auth, body: unknown) => createPost(new Request(BASE, jsonInit('POST', user, body)), ctx({}));
export const get = (user: Auth, id: string) => skillGet(new Request(`${BASE}/${id}`, { headers: user.auth }), ctx({ id }));
export const patch = (user: Auth, id: string, body: unknown) => skillPatch(new Request(`${BASE}/${id}`, jsonInit('PATCH', user, body)), ctx({ id }));
export const remove = (user: Auth, id: string) => skillDelete(new Request(`${BASE}/${id}`, { method: 'DELETE', headers: user.auth }), ctx({ id }));
export const file = (user: Auth, id: string, path: string) => fileGet(new Request(`${BASE}/${id}/files/${path}`, { headers: user.auth }), ctx({ id, path: path.split('/') }));
export const importZip = (user: Auth, zip: Uint8Array, type = 'application/octet-stream') =>
  importPost(new Request(`${BASE}/import`, { method: 'POST', headers: { 'content-type': type, ...user.auth }, body: zip as BodyInit }), ctx({}));

export async function created(user: Auth, body: { name: string; description: string; body: string }): Promise<SkillView> {
  const res = await create(user, body);
  if (res.status !== 201) throw new Error(`create ${res.status}: ${await res.text()}`);
  return (await res.json()) as SkillView;
}

export const skillMd = (name: string, description: string, body: string) => `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(description)}\n---\n${body}`;
const enc = (s: string) => new TextEncoder().encode(s);
/** A ZIP of text files (fflate, deflated). */
export const zipOf = (files: Record<string, string | Uint8Array>): Uint8Array => zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, typeof v === 'string' ? enc(v) : v])) as Zippable);
export { zipSync };
