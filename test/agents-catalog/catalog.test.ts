import crypto from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LIMITS } from '@/lib/limits';
import {
  containsPattern,
  createAgent,
  deleteAgent,
  findAgent,
  getAgent,
  listAgents,
  toApiAgent,
  updateAgent,
} from '@/server/agents/catalog';
import { writeTx } from '@/server/db';
import { statement } from '@/server/db/statement';
import { AppError } from '@/server/http/errors';
import { makeUser } from '../support/users';

/** Run fn and return the AppError it throws (failing the test when it throws nothing or something else). */
async function appError(fn: () => Promise<unknown>): Promise<AppError> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected an AppError, got none');
}

/** Every agents row of an owner exactly as stored, to prove a failed call changed nothing. */
const agentRows = statement('select * from agents where owner_id = ? order by id');
function storedRows(ownerId: string) {
  return agentRows.all(ownerId);
}

afterEach(async () => {
  vi.useRealTimers();
});

const names = async (ownerId: string, query?: string) => (await listAgents(ownerId, query)).map((a) => a.name);

describe('agent catalog: create and read', () => {
  it('creates an agent with defaults and reads it back', async () => {
    const alice = await makeUser('alice');
    const agent = await createAgent(alice.id, { name: '  Planner ' });
    expect(agent).toMatchObject({
      ownerId: alice.id,
      name: 'Planner',
      nameKey: 'planner',
      description: '',
      instructions: '',
      model: 'scripted',
      toolGroups: [],
      approvalTools: [],
      maxTurns: 25,
    });
    expect(await getAgent(alice.id, agent.id)).toEqual(agent);
    const api = toApiAgent(agent);
    expect(Object.keys(api).sort()).toEqual(
      [
        'allowedSubagents',
        'approvalTools',
        'compactAtTokens',
        'createdAt',
        'description',
        'id',
        'instructions',
        'maxChildren',
        'maxConcurrentChildren',
        'maxDepth',
        'maxTurns',
        'mcpTools',
        'model',
        'name',
        'skills',
        'timeLimitMinutes',
        'tokenBudget',
        'toolGroups',
        'updatedAt',
      ].sort(),
    );
    expect(api.createdAt).toBe(agent.createdAt.toISOString());
    expect(api.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('stores every field it is given', async () => {
    const alice = await makeUser('alice');
    const agent = await createAgent(alice.id, {
      name: '研究者 🔬',
      description: 'Finds things',
      instructions: 'Be thorough.',
      model: 'openai:gpt-4.1-mini',
      toolGroups: ['utility', 'clarify'],
      approvalTools: ['calculator'],
      maxTurns: 150,
    });
    expect(toApiAgent(await getAgent(alice.id, agent.id))).toMatchObject({
      name: '研究者 🔬',
      description: 'Finds things',
      instructions: 'Be thorough.',
      model: 'openai:gpt-4.1-mini',
      toolGroups: ['utility', 'clarify'],
      approvalTools: ['calculator'],
      maxTurns: 150,
    });
  });

  it('refuses invalid input with 422 and stores nothing', async () => {
    const alice = await makeUser('alice');
    const err = await appError(() => createAgent(alice.id, { name: 'ok', model: 'nope', extra: 1 } as never));
    expect(err.status).toBe(422);
    expect(Object.keys(err.fields ?? {}).sort()).toEqual(['extra', 'model']);
    expect(await storedRows(alice.id)).toEqual([]);
  });

  it('answers 404 for ids that do not exist', async () => {
    const alice = await makeUser('alice');
    expect((await appError(() => getAgent(alice.id, crypto.randomUUID()))).status).toBe(404);
    expect(await findAgent(alice.id, 'missing')).toBeNull();
  });
});

describe('agent catalog: names are unique per owner without case', () => {
  it('refuses a name that differs only in case, with 409 name_taken on the name field', async () => {
    const alice = await makeUser('alice');
    await createAgent(alice.id, { name: 'Writer' });
    const before = await storedRows(alice.id);
    for (const name of ['writer', 'WRITER', ' wRiTeR ']) {
      const err = await appError(() => createAgent(alice.id, { name }));
      expect(err.status).toBe(409);
      expect(err.code).toBe('name_taken');
      expect(Object.keys(err.fields ?? {})).toEqual(['name']);
      // The agent that holds the name, as it is written, not the refused spelling.
      expect(err.message).toBe('You already have an agent named "Writer" (names are compared without case)');
    }
    expect(await storedRows(alice.id)).toEqual(before);
  });

  it('folds non-ASCII case too', async () => {
    const alice = await makeUser('alice');
    await createAgent(alice.id, { name: 'Ärger' });
    expect((await appError(() => createAgent(alice.id, { name: 'ärger' }))).status).toBe(409);
    await createAgent(alice.id, { name: 'Σοφια' });
    expect((await appError(() => createAgent(alice.id, { name: 'ΣΟΦΙΑ' }))).code).toBe('name_taken');
  });

  it('lets two owners use the same name', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    await createAgent(alice.id, { name: 'Helper' });
    expect((await createAgent(bob.id, { name: 'helper' })).name).toBe('helper');
  });

  it('refuses renaming onto another agent’s name but allows changing the case of its own', async () => {
    const alice = await makeUser('alice');
    await createAgent(alice.id, { name: 'Alpha' });
    const beta = await createAgent(alice.id, { name: 'Beta' });
    const before = await storedRows(alice.id);
    const err = await appError(() => updateAgent(alice.id, beta.id, { name: 'ALPHA', description: 'changed' }));
    expect([err.status, err.code, Object.keys(err.fields ?? {})]).toEqual([409, 'name_taken', ['name']]);
    expect(err.fields?.name).toBe('You already have an agent named "Alpha" (names are compared without case)');
    expect(await storedRows(alice.id)).toEqual(before);
    expect(await updateAgent(alice.id, beta.id, { name: 'BETA' })).toMatchObject({ name: 'BETA', nameKey: 'beta' });
  });
});

describe('agent catalog: list and search', () => {
  it('lists only the owner’s agents, ordered by name without case', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    await createAgent(alice.id, { name: 'charlie' });
    await createAgent(alice.id, { name: 'Alpha' });
    await createAgent(alice.id, { name: 'bravo' });
    await createAgent(bob.id, { name: 'Bob’s own' });
    expect(await names(alice.id)).toEqual(['Alpha', 'bravo', 'charlie']);
    expect(await names(alice.id, '')).toEqual(['Alpha', 'bravo', 'charlie']);
    expect(await names(alice.id, '   ')).toEqual(['Alpha', 'bravo', 'charlie']);
  });

  it('searches name or description, case-insensitively', async () => {
    const alice = await makeUser('alice');
    await createAgent(alice.id, { name: 'Researcher', description: 'Finds sources' });
    await createAgent(alice.id, { name: 'Writer', description: 'Drafts RESEARCH summaries' });
    await createAgent(alice.id, { name: 'Reviewer', description: 'Checks drafts' });
    await createAgent(alice.id, { name: 'Éclair', description: 'pastry' });
    expect(await names(alice.id, 'research')).toEqual(['Researcher', 'Writer']);
    expect(await names(alice.id, 'DRAFTS')).toEqual(['Reviewer', 'Writer']);
    expect(await names(alice.id, 'sources')).toEqual(['Researcher']);
    expect(await names(alice.id, 'éCLAIR')).toEqual(['Éclair']);
    expect(await names(alice.id, 'nothing like this')).toEqual([]);
  });

  it('treats % and _ (and the escape character) literally', async () => {
    const alice = await makeUser('alice');
    await createAgent(alice.id, { name: '100% sure', description: 'confident' });
    await createAgent(alice.id, { name: 'Plain', description: 'uses snake_case' });
    await createAgent(alice.id, { name: 'Back\\slash' });
    await createAgent(alice.id, { name: '1000 sure', description: 'snakeXcase and 100 percent' });
    expect(await names(alice.id, '%')).toEqual(['100% sure']);
    expect(await names(alice.id, '0%')).toEqual(['100% sure']);
    expect(await names(alice.id, '_')).toEqual(['Plain']);
    expect(await names(alice.id, 'snake_case')).toEqual(['Plain']);
    expect(await names(alice.id, '\\')).toEqual(['Back\\slash']);
    expect(containsPattern('a%b_c\\d')).toBe('%a\\%b\\_c\\\\d%');
  });

  it('bounds search text at LIMITS.agent.queryChars characters in ASCII, CJK and emoji, and refuses a control character, with 400', async () => {
    const alice = await makeUser('alice');
    const max = LIMITS.agent.queryChars;
    const units = { Ascii: 'q', Cjk: '字', Emoji: '🎉' };
    for (const [name, unit] of Object.entries(units)) await createAgent(alice.id, { name, description: unit.repeat(max) });
    for (const [name, unit] of Object.entries(units)) {
      // At the limit: a search (an emoji is one character, not two UTF-16 units); surrounding spaces are trimmed first.
      expect(await names(alice.id, ` ${unit.repeat(max)} `), unit).toEqual([name]);
      const err = await appError(() => listAgents(alice.id, unit.repeat(max + 1)));
      expect([err.status, err.code, err.message], unit).toEqual([400, 'invalid_query', `query: Must be at most ${max} characters (now ${max + 1})`]);
    }
    // Must not happen: a control character quietly matching nothing (the activity feed's filter refuses it too).
    const nul = await appError(() => listAgents(alice.id, 'Wri\u0000ter'));
    expect([nul.status, nul.code, nul.message]).toEqual([400, 'invalid_query', 'query: Contains a control character (U+0000)']);
  });
});

describe('agent catalog: update', () => {
  it('changes only the given fields and bumps updatedAt', async () => {
    const alice = await makeUser('alice');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-01T00:00:00.000Z'));
    const agent = await createAgent(alice.id, { name: 'Editor', description: 'old', instructions: 'keep me', maxTurns: 10 });
    vi.setSystemTime(new Date('2030-01-01T00:05:00.000Z'));
    const updated = await updateAgent(alice.id, agent.id, { description: 'new', toolGroups: ['utility'] });
    vi.useRealTimers();
    expect(updated).toMatchObject({ name: 'Editor', description: 'new', instructions: 'keep me', maxTurns: 10, toolGroups: ['utility'] });
    expect(updated.createdAt).toEqual(agent.createdAt);
    expect(agent.updatedAt.toISOString()).toBe('2030-01-01T00:00:00.000Z');
    expect(updated.updatedAt.toISOString()).toBe('2030-01-01T00:05:00.000Z');
  });

  it('treats an empty patch as no change', async () => {
    const alice = await makeUser('alice');
    const agent = await createAgent(alice.id, { name: 'Still' });
    expect(await updateAgent(alice.id, agent.id, {})).toEqual(agent);
  });

  it('refuses invalid patches with 422 and changes nothing', async () => {
    const alice = await makeUser('alice');
    const agent = await createAgent(alice.id, { name: 'Strict' });
    const before = await storedRows(alice.id);
    const err = await appError(() => updateAgent(alice.id, agent.id, { maxTurns: 151, description: 'fine' }));
    expect([err.status, Object.keys(err.fields ?? {})]).toEqual([422, ['maxTurns']]);
    expect((await appError(() => updateAgent(alice.id, agent.id, { name: '  ' }))).status).toBe(422);
    expect(await storedRows(alice.id)).toEqual(before);
  });

  it('answers 404 for a missing id', async () => {
    const alice = await makeUser('alice');
    expect((await appError(() => updateAgent(alice.id, 'missing', { description: 'x' }))).status).toBe(404);
  });
});

describe('agent catalog: delete', () => {
  it('deletes the agent and keeps its conversations readable', async () => {
    const alice = await makeUser('alice');
    const agent = await createAgent(alice.id, { name: 'Gone soon' });
    const conversationId = crypto.randomUUID();
    await writeTx(() =>
      statement('insert into conversations (id, owner_id, agent_id, agent_name, updated_at) values (?, ?, ?, ?, ?)').run(
        conversationId,
        alice.id,
        agent.id,
        agent.name,
        new Date(),
      ),
    );
    await deleteAgent(alice.id, agent.id);
    expect(await findAgent(alice.id, agent.id)).toBeNull();
    expect((await appError(() => deleteAgent(alice.id, agent.id))).status).toBe(404);
    const conversation = await statement('select agent_id, agent_name from conversations where id = ?').get(conversationId);
    expect(conversation).toEqual({ agent_id: null, agent_name: 'Gone soon' });
  });

  it('frees the name for reuse', async () => {
    const alice = await makeUser('alice');
    const agent = await createAgent(alice.id, { name: 'Reusable' });
    await deleteAgent(alice.id, agent.id);
    expect((await createAgent(alice.id, { name: 'REUSABLE' })).name).toBe('REUSABLE');
  });
});

describe("agent catalog: doesn't touch other users' rows", () => {
  it('bob can neither get, list, search, update nor delete alice’s agents, and her rows stay unchanged', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const secret = await createAgent(alice.id, { name: 'Secret', description: 'alice only', toolGroups: ['utility'] });
    const before = await storedRows(alice.id);

    expect((await appError(() => getAgent(bob.id, secret.id))).status).toBe(404);
    expect(await findAgent(bob.id, secret.id)).toBeNull();
    expect(await listAgents(bob.id)).toEqual([]);
    expect(await listAgents(bob.id, 'secret')).toEqual([]);
    expect(await listAgents(bob.id, 'alice')).toEqual([]);
    const updateErr = await appError(() => updateAgent(bob.id, secret.id, { name: 'Stolen', description: 'bob was here' }));
    expect([updateErr.status, updateErr.message]).toEqual([404, 'Agent not found']);
    expect((await appError(() => updateAgent(bob.id, secret.id, {}))).status).toBe(404);
    const deleteErr = await appError(() => deleteAgent(bob.id, secret.id));
    expect([deleteErr.status, deleteErr.message]).toEqual([404, 'Agent not found']);

    expect(await storedRows(alice.id)).toEqual(before);
    expect(await names(alice.id)).toEqual(['Secret']);
  });

  it('a 404 across owners is indistinguishable from a missing id', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const agent = await createAgent(alice.id, { name: 'Hidden' });
    const foreign = await appError(() => getAgent(bob.id, agent.id));
    const missing = await appError(() => getAgent(bob.id, crypto.randomUUID()));
    expect(foreign.toBody()).toEqual(missing.toBody());
  });
});
