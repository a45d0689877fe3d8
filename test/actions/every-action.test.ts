import '../auth/support/next-auth';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';

vi.mock('next/headers', () => ({ headers: async () => new Headers(), cookies: async () => ({ get: () => undefined }) }));
vi.mock('@/server/auth/config', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@/server/auth/config')>()),
  auth: async () => null,
}));

const { AppError } = await import('@/server/http/errors');
const { getDb, schema } = await import('@/server/db');
const { makeUser } = await import('../support/users');
const { makeTeam } = await import('../support/teams');

/**
 * Every server action of the signed-in sections (app/(app)/<feature>/actions.ts), walked from the tree so a new
 * feature's actions are covered without anyone remembering to add them: signed out, each one refuses before it
 * reads its arguments or writes anything — the typed `unauthorized` result, or (for a useActionState form action
 * such as the password change) a thrown 401.
 */
const SECTIONS = path.resolve(__dirname, '../../app/(app)');
const actionFiles = fs
  .readdirSync(SECTIONS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(SECTIONS, entry.name, 'actions.ts')))
  .map((entry) => entry.name);

/** Every row the actions could write, to prove a refused call changed nothing. */
const everything = async () => {
  const rows = [];
  for (const table of [schema.users, schema.apiTokens, schema.invitations, schema.agents, schema.conversations, schema.runs, schema.teams, schema.teamMembers, schema.jobs, schema.batches, schema.batchItems, schema.skills, schema.skillFiles]) {
    rows.push(await getDb().select().from(table));
  }
  return JSON.stringify(rows);
};

describe('every signed-in section action', () => {
  it('finds the sections that have actions', () => {
    expect(actionFiles.sort()).toEqual(['admin', 'agents', 'batches', 'conversations', 'files', 'inbox', 'settings', 'skills', 'teams']);
  });

  it('refuses a signed-out caller and changes nothing, whatever the arguments', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    // Real ids of someone's things, and junk, so only the missing session can be what refuses.
    const argumentSets: unknown[][] = [[], [team.id, { text: 'x' }], [team.id, team.members[0]!.id, { answer: 'x', answerKey: 'k' }], [{ name: 'x' }]];
    let checked = 0;
    for (const feature of actionFiles) {
      const mod = (await import(path.join(SECTIONS, feature, 'actions.ts'))) as Record<string, unknown>;
      for (const [name, action] of Object.entries(mod)) {
        if (typeof action !== 'function') continue;
        for (const args of argumentSets) {
          const before = await everything();
          const outcome = await (action as (...a: unknown[]) => Promise<unknown>)(...args).then(
            (value) => ({ value }),
            (error: unknown) => ({ error }),
          );
          const label = `${feature}/${name}(${args.length} args)`;
          if ('value' in outcome) expect(outcome.value, label).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
          else expect(outcome.error instanceof AppError && outcome.error.status === 401, `${label} threw ${String(outcome.error)}`).toBe(true);
          expect(await everything(), `${label} changed state`).toBe(before);
        }
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(23);
  });
});
