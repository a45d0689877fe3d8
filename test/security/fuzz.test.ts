import fs from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPersonEntry } from '@/server/teams/person-state';
import { apiRoutes, callRoute, databaseFingerprint, makeWorld, settleRuns, type World } from './support';

/**
 * Fuzz every route that reads a JSON body (found in the tree: its source calls readBody/readJson) with generated
 * bodies: wrong types for every field name the API knows, huge and odd numbers, lone surrogates, deep nesting,
 * unknown fields, arbitrary JSON and non-JSON text. What must not happen: a 5xx (an unhandled error), or a 4xx that
 * wrote anything (both databases compared; the sign-in limiter's own bookkeeping of wrong passwords excepted).
 * The owner is the admin calling on its own ids, so every body reaches validation.
 */
const FIELDS = [
  'name', 'description', 'instructions', 'model', 'maxTurns', 'toolGroups', 'approvalTools', 'timeLimitMinutes',
  'text', 'agentId', 'agentIds', 'memberIds', 'draftKey', 'messageKey', 'requestId', 'goal', 'answer', 'answerKey',
  'response', 'value', 'idempotencyKey', 'email', 'password', 'currentPassword', 'newPassword', 'expiresInDays',
  'note', 'role', 'approved',
];

const LONE = ['\uD800', '\uDFFF', 'a\uD83Dz', '\uDE00x'];
const HUGE = [1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -0, 5e-324, 1.5, 2 ** 31, -(2 ** 63)];

const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom(...LONE).map((s) => `x${s}`),
  fc.constantFrom(...HUGE),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string(), fc.integer(), fc.constantFrom(...LONE)), { maxLength: 12 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
  fc.integer({ min: 1, max: 9_000 }).map((n) => 'x'.repeat(n)),
);

/** Bodies as the text a client would send. */
const bodyText: fc.Arbitrary<string> = fc.oneof(
  // Known field names with wrong or edge values, plus unknown fields.
  fc
    .tuple(
      fc.dictionary(fc.constantFrom(...FIELDS), nastyValue, { maxKeys: 6 }),
      fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), nastyValue, { maxKeys: 2 }),
    )
    .map(([known, unknown]) => JSON.stringify({ ...unknown, ...known })),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  // Deep nesting: around the limit and far past it (within the body cap).
  fc.integer({ min: 60, max: 20_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 60, max: 10_000 }).map((n) => '{"text":'.repeat(n) + '"x"' + '}'.repeat(n)),
  // Lone surrogates as JSON escapes, in values and keys.
  fc.constantFrom(...FIELDS).map((f) => `{"${f}":"\\ud800"}`),
  fc.constantFrom(...FIELDS).map((f) => `{"\\udc00${f}":1}`),
  // Not JSON at all.
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', ' ', 'null', '[]', '"text"', '1e999', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{}}}'),
);

/** POST/PUT/PATCH methods in route files that read a body (a DELETE or GET beside them reads none). */
const bodyRoutes = () =>
  apiRoutes().filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method) && /\bread(Body|Json)\(/.test(fs.readFileSync(r.file, 'utf8')));

describe('fuzzed bodies on every route that reads one', () => {
  let world: World;
  let stateEntryId = '';
  beforeAll(async () => {
    world = await makeWorld();
    stateEntryId = (await createPersonEntry(world.ann.id, world.team.id, { requestId: 'fuzz', kind: 'plan', title: 'Fuzzed', content: '' })).entry
      .id;
  });

  const paramsFor = (w: World): Record<string, string> => ({ id: w.agent.id, jobId: w.jobId });
  const idFor = (route: string, w: World): Record<string, string> => {
    if (route.startsWith('/agents/')) return { id: w.agent.id };
    if (route.startsWith('/conversations/')) return { id: w.conversation.id };
    if (route.startsWith('/teams/')) return { id: w.team.id, jobId: w.jobId, entryId: stateEntryId };
    if (route.startsWith('/runs/')) return { id: w.run.id };
    if (route.startsWith('/tokens/')) return { id: w.tokenId };
    if (route.startsWith('/admin/invitations/')) return { id: w.invitationId };
    if (route.startsWith('/admin/users/')) return { id: w.bob.id };
    return paramsFor(w);
  };

  it('finds the body routes in the tree', () => {
    expect(bodyRoutes().map((r) => r.key)).toEqual(expect.arrayContaining(['POST /agents', 'PATCH /agents/[id]', 'POST /teams']));
  });

  for (const { key, method, route, file } of bodyRoutes()) {
    it(`${key}: never a 5xx, nothing written on a 4xx`, async () => {
      const passwordRoute = /\/(tokens|me\/password)$/.test(route);
      await fc.assert(
        fc.asyncProperty(bodyText, async (text) => {
          const before = await databaseFingerprint({ ignoreLimiter: passwordRoute });
          const res = await callRoute({
            method,
            route,
            file,
            params: idFor(route, world),
            body: text,
            headers: { ...world.ann.auth, 'content-type': 'application/json' },
          });
          expect(res.status, `${text.slice(0, 200)} → ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(500);
          if (res.status >= 400) expect(await databaseFingerprint({ ignoreLimiter: passwordRoute })).toBe(before);
          else await settleRuns();
        }),
        { numRuns: 8 },
      );
    });
  }

  it('deep nesting is 422 on every body route (65 levels and 30,000 — as deep as fits the body cap), never a 500', async () => {
    for (const { key, method, route, file } of bodyRoutes()) {
      for (const depth of [65, 30_000]) {
        const res = await callRoute({
          method,
          route,
          file,
          params: idFor(route, world),
          body: '['.repeat(depth) + ']'.repeat(depth),
          headers: { ...world.ann.auth, 'content-type': 'application/json' },
        });
        expect([key, depth, res.status]).toEqual([key, depth, 422]);
      }
    }
  });
});
