import crypto from 'node:crypto';
import fs from 'node:fs';
import fc from 'fast-check';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema, writeTx } from '@/server/db';
import { createPersonEntry } from '@/server/teams/person-state';
import { queueRequest } from '@/server/teams/queue';
import { teamMembers } from '@/server/teams/teams';
import { agentFor, apiRoutes, callRoute, databaseFingerprint, makeWorld, settleRuns, type World } from './support';

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
const CONTROLS = ['\u0000', 'a\u0000b', '\u0007', '\u001b[31m', '\u0085', '\u009f'];

// All of Unicode: fast-check's default strings are ASCII only. Any code point (unit 'binary'), NUL and the C0/C1
// controls, and lone surrogate halves, mixed.
const loneHalf = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const anyUnicode = (maxLength: number) =>
  fc.string({ unit: fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), fc.constantFrom(...CONTROLS), loneHalf), maxLength });
const HUGE = [1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -0, 5e-324, 1.5, 2 ** 31, -(2 ** 63)];

const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.string(),
  anyUnicode(50),
  fc.constantFrom(...CONTROLS).map((s) => `x${s}y`),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom(...LONE).map((s) => `x${s}`),
  fc.constantFrom(...HUGE),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string(), anyUnicode(12), fc.integer(), fc.constantFrom(...LONE, ...CONTROLS)), { maxLength: 12 }),
  fc.dictionary(anyUnicode(8), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
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
  // NUL as a JSON escape, in values and keys.
  fc.constantFrom(...FIELDS).map((f) => `{"${f}":"a\\u0000b"}`),
  fc.constantFrom(...FIELDS).map((f) => `{"\\u0000${f}":1}`),
  // Not JSON at all.
  fc.string({ maxLength: 40 }),
  anyUnicode(40),
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
    // No batch here: a well-formed body meets a missing item (404), a malformed one the body's 422.
    if (route.startsWith('/batches/')) return { id: w.agent.id, itemId: w.jobId };
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

/**
 * A person's text holding NUL or another C0/C1 control (tab, line feed and carriage return aside) in each text field
 * of the routes that store one, from outside (ADR 046). Runs on both engines (under test:pg on Postgres, where a NUL
 * reaching a `text` column was a 500). What must not happen: a 5xx, an answer that doesn't name the field, or
 * anything written.
 */
describe('control characters in a person’s text', () => {
  let world: World;
  let secondAgent = '';
  beforeAll(async () => {
    world = await makeWorld();
    secondAgent = (await agentFor(world.ann.id)).id;
  });
  const CASES: Array<{ key: string; field: string; params: (w: World) => Record<string, string>; body: (w: World, text: string) => unknown }> = [
    { key: 'POST /teams', field: 'name', params: () => ({}), body: (w, text) => ({ requestId: crypto.randomUUID(), name: text, goal: 'Goal', agentIds: [w.agent.id, secondAgent] }) },
    { key: 'POST /teams', field: 'goal', params: () => ({}), body: (w, text) => ({ requestId: crypto.randomUUID(), name: 'Named', goal: text, agentIds: [w.agent.id, secondAgent] }) },
    { key: 'PATCH /agents/[id]', field: 'instructions', params: (w) => ({ id: w.agent.id }), body: (_w, text) => ({ instructions: text }) },
    { key: 'POST /conversations/[id]/messages', field: 'text', params: (w) => ({ id: w.conversation.id }), body: (_w, text) => ({ text }) },
    {
      key: 'POST /conversations/[id]/mentions',
      field: 'text',
      params: (w) => ({ id: w.conversation.id }),
      body: (w, text) => ({ memberIds: [w.memberId], text, messageKey: crypto.randomUUID() }),
    },
    {
      key: 'POST /teams/[id]/requests',
      field: 'text',
      params: (w) => ({ id: w.team.id }),
      body: (w, text) => ({ memberIds: [w.memberId], text, draftKey: crypto.randomUUID() }),
    },
  ];
  const TEXTS = ['\u0000', 'before\u0000after', '计划\u0007', '🚀\u001b[31m', 'next\u0085line', 'end\u009f'];

  for (const c of CASES) {
    it(`${c.key} ${c.field}: refused with a 422 naming the field, nothing written`, async () => {
      const entry = apiRoutes().find((r) => r.key === c.key);
      expect(entry, c.key).toBeDefined();
      for (const text of TEXTS) {
        const before = await databaseFingerprint();
        const res = await callRoute({
          method: entry!.method,
          route: entry!.route,
          file: entry!.file,
          params: c.params(world),
          body: JSON.stringify(c.body(world, text)),
          headers: { ...world.ann.auth, 'content-type': 'application/json' },
        });
        expect([JSON.stringify(text), res.status, res.body.error?.code]).toEqual([JSON.stringify(text), 422, 'validation_error']);
        expect((res.body.error as { fields?: Record<string, string> }).fields?.[c.field]).toMatch(/control character/);
        expect(await databaseFingerprint()).toBe(before);
      }
    });
  }

  it('tab, line feed and carriage return are a person’s text, not controls: accepted', async () => {
    const entry = apiRoutes().find((r) => r.key === 'PATCH /agents/[id]')!;
    const res = await callRoute({
      method: entry.method,
      route: entry.route,
      file: entry.file,
      params: { id: world.agent.id },
      body: JSON.stringify({ instructions: 'a\tb\r\nc' }),
      headers: { ...world.ann.auth, 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
  });
});

/**
 * Retry from outside (POST /teams/[id]/jobs/[jobId]/retry) of a member's failed handoff. What must not happen: the
 * retried request credited to the person ("You", no sending member), which would give a member's text the person's
 * authority (ADR 012) and the person's name in the feed and the export.
 */
describe('retrying a member’s request keeps its author', () => {
  it('the answer and the shared record name the member that sent it', async () => {
    const world = await makeWorld();
    const members = await teamMembers(world.team.id);
    const [sender, receiver] = members;
    const handoff = await writeTx(async (tx) => {
      const { job } = await queueRequest(tx, {
        teamId: world.team.id,
        ownerId: world.ann.id,
        member: receiver!,
        text: '/reply obeyed',
        requestKey: `tool:${crypto.randomUUID()}`,
        sourceMemberId: sender!.id,
        sourceConversationId: null,
        senderLabel: sender!.name,
        parent: null,
      });
      await tx.update(schema.jobs).set({ status: 'failed', error: 'broke' }).where(eq(schema.jobs.id, job.id));
      return job;
    });
    const entry = apiRoutes().find((r) => r.key === 'POST /teams/[id]/jobs/[jobId]/retry')!;
    const res = await callRoute({
      method: entry.method,
      route: entry.route,
      file: entry.file,
      params: { id: world.team.id, jobId: handoff.id },
      body: JSON.stringify({ requestId: 'outside' }),
      headers: { ...world.ann.auth, 'content-type': 'application/json' },
    });
    expect(res.status).toBe(201);
    const retried = res.body.job as { id: string; sourceMemberId: string | null };
    expect(retried.sourceMemberId).toBe(sender!.id);
    const lines = await getDb().select().from(schema.sharedMessages).where(eq(schema.sharedMessages.jobId, retried.id));
    expect(lines.map((l) => [l.kind, l.senderMemberId, l.senderLabel])).toEqual([['request', sender!.id, sender!.name]]);
  });
});
