import crypto from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
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
import { getDb } from '@/server/db';
import { AppError } from '@/server/http/errors';
import { makeUser } from '../support/users';

/** Run fn and return the AppError it throws (failing the test when it throws nothing or something else). */
function appError(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected an AppError, got none');
}

/** Every agents row of an owner exactly as stored, to prove a failed call changed nothing. */
function storedRows(ownerId: string) {
  return getDb().$client.prepare('select * from agents where owner_id = ? order by id').all(ownerId);
}

afterEach(() => {
  vi.useRealTimers();
});

const names = (ownerId: string, query?: string) => listAgents(ownerId, query).map((a) => a.name);

describe('agent catalog: create and read', () => {
  it('creates an agent with defaults and reads it back', async () => {
    const alice = await makeUser('alice');
    const agent = createAgent(alice.id, { name: '  Planner ' });
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
    expect(getAgent(alice.id, agent.id)).toEqual(agent);
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
        'model',
        'name',
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
    const agent = createAgent(alice.id, {
      name: '研究者 🔬',
      description: 'Finds things',
      instructions: 'Be thorough.',
      model: 'openai:gpt-4.1-mini',
      toolGroups: ['utility', 'clarify'],
      approvalTools: ['calculator'],
      maxTurns: 150,
    });
    expect(toApiAgent(getAgent(alice.id, agent.id))).toMatchObject({
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
    const err = appError(() => createAgent(alice.id, { name: 'ok', model: 'nope', extra: 1 } as never));
    expect(err.status).toBe(422);
    expect(Object.keys(err.fields ?? {}).sort()).toEqual(['extra', 'model']);
    expect(storedRows(alice.id)).toEqual([]);
  });

  it('answers 404 for ids that do not exist', async () => {
    const alice = await makeUser('alice');
    expect(appError(() => getAgent(alice.id, crypto.randomUUID())).status).toBe(404);
    expect(findAgent(alice.id, 'missing')).toBeNull();
  });
});

describe('agent catalog: names are unique per owner without case', () => {
  it('refuses a name that differs only in case, with 409 name_taken on the name field', async () => {
    const alice = await makeUser('alice');
    createAgent(alice.id, { name: 'Writer' });
    const before = storedRows(alice.id);
    for (const name of ['writer', 'WRITER', ' wRiTeR ']) {
      const err = appError(() => createAgent(alice.id, { name }));
      expect(err.status).toBe(409);
      expect(err.code).toBe('name_taken');
      expect(Object.keys(err.fields ?? {})).toEqual(['name']);
    }
    expect(storedRows(alice.id)).toEqual(before);
  });

  it('folds non-ASCII case too', async () => {
    const alice = await makeUser('alice');
    createAgent(alice.id, { name: 'Ärger' });
    expect(appError(() => createAgent(alice.id, { name: 'ärger' })).status).toBe(409);
    createAgent(alice.id, { name: 'Σοφια' });
    expect(appError(() => createAgent(alice.id, { name: 'ΣΟΦΙΑ' })).code).toBe('name_taken');
  });

  it('lets two owners use the same name', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    createAgent(alice.id, { name: 'Helper' });
    expect(createAgent(bob.id, { name: 'helper' }).name).toBe('helper');
  });

  it('refuses renaming onto another agent’s name but allows changing the case of its own', async () => {
    const alice = await makeUser('alice');
    createAgent(alice.id, { name: 'Alpha' });
    const beta = createAgent(alice.id, { name: 'Beta' });
    const before = storedRows(alice.id);
    const err = appError(() => updateAgent(alice.id, beta.id, { name: 'ALPHA', description: 'changed' }));
    expect([err.status, err.code, Object.keys(err.fields ?? {})]).toEqual([409, 'name_taken', ['name']]);
    expect(storedRows(alice.id)).toEqual(before);
    expect(updateAgent(alice.id, beta.id, { name: 'BETA' })).toMatchObject({ name: 'BETA', nameKey: 'beta' });
  });
});

describe('agent catalog: list and search', () => {
  it('lists only the owner’s agents, ordered by name without case', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    createAgent(alice.id, { name: 'charlie' });
    createAgent(alice.id, { name: 'Alpha' });
    createAgent(alice.id, { name: 'bravo' });
    createAgent(bob.id, { name: 'Bob’s own' });
    expect(names(alice.id)).toEqual(['Alpha', 'bravo', 'charlie']);
    expect(names(alice.id, '')).toEqual(['Alpha', 'bravo', 'charlie']);
    expect(names(alice.id, '   ')).toEqual(['Alpha', 'bravo', 'charlie']);
  });

  it('searches name or description, case-insensitively', async () => {
    const alice = await makeUser('alice');
    createAgent(alice.id, { name: 'Researcher', description: 'Finds sources' });
    createAgent(alice.id, { name: 'Writer', description: 'Drafts RESEARCH summaries' });
    createAgent(alice.id, { name: 'Reviewer', description: 'Checks drafts' });
    createAgent(alice.id, { name: 'Éclair', description: 'pastry' });
    expect(names(alice.id, 'research')).toEqual(['Researcher', 'Writer']);
    expect(names(alice.id, 'DRAFTS')).toEqual(['Reviewer', 'Writer']);
    expect(names(alice.id, 'sources')).toEqual(['Researcher']);
    expect(names(alice.id, 'éCLAIR')).toEqual(['Éclair']);
    expect(names(alice.id, 'nothing like this')).toEqual([]);
  });

  it('treats % and _ (and the escape character) literally', async () => {
    const alice = await makeUser('alice');
    createAgent(alice.id, { name: '100% sure', description: 'confident' });
    createAgent(alice.id, { name: 'Plain', description: 'uses snake_case' });
    createAgent(alice.id, { name: 'Back\\slash' });
    createAgent(alice.id, { name: '1000 sure', description: 'snakeXcase and 100 percent' });
    expect(names(alice.id, '%')).toEqual(['100% sure']);
    expect(names(alice.id, '0%')).toEqual(['100% sure']);
    expect(names(alice.id, '_')).toEqual(['Plain']);
    expect(names(alice.id, 'snake_case')).toEqual(['Plain']);
    expect(names(alice.id, '\\')).toEqual(['Back\\slash']);
    expect(containsPattern('a%b_c\\d')).toBe('%a\\%b\\_c\\\\d%');
  });

  it('refuses over-long search text with 400', async () => {
    const alice = await makeUser('alice');
    const err = appError(() => listAgents(alice.id, 'q'.repeat(201)));
    expect([err.status, err.code]).toEqual([400, 'invalid_query']);
  });
});

describe('agent catalog: update', () => {
  it('changes only the given fields and bumps updatedAt', async () => {
    const alice = await makeUser('alice');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-01T00:00:00.000Z'));
    const agent = createAgent(alice.id, { name: 'Editor', description: 'old', instructions: 'keep me', maxTurns: 10 });
    vi.setSystemTime(new Date('2030-01-01T00:05:00.000Z'));
    const updated = updateAgent(alice.id, agent.id, { description: 'new', toolGroups: ['utility'] });
    vi.useRealTimers();
    expect(updated).toMatchObject({ name: 'Editor', description: 'new', instructions: 'keep me', maxTurns: 10, toolGroups: ['utility'] });
    expect(updated.createdAt).toEqual(agent.createdAt);
    expect(agent.updatedAt.toISOString()).toBe('2030-01-01T00:00:00.000Z');
    expect(updated.updatedAt.toISOString()).toBe('2030-01-01T00:05:00.000Z');
  });

  it('treats an empty patch as no change', async () => {
    const alice = await makeUser('alice');
    const agent = createAgent(alice.id, { name: 'Still' });
    expect(updateAgent(alice.id, agent.id, {})).toEqual(agent);
  });

  it('refuses invalid patches with 422 and changes nothing', async () => {
    const alice = await makeUser('alice');
    const agent = createAgent(alice.id, { name: 'Strict' });
    const before = storedRows(alice.id);
    const err = appError(() => updateAgent(alice.id, agent.id, { maxTurns: 151, description: 'fine' }));
    expect([err.status, Object.keys(err.fields ?? {})]).toEqual([422, ['maxTurns']]);
    expect(appError(() => updateAgent(alice.id, agent.id, { name: '  ' })).status).toBe(422);
    expect(storedRows(alice.id)).toEqual(before);
  });

  it('answers 404 for a missing id', async () => {
    const alice = await makeUser('alice');
    expect(appError(() => updateAgent(alice.id, 'missing', { description: 'x' })).status).toBe(404);
  });
});

describe('agent catalog: delete', () => {
  it('deletes the agent and keeps its conversations readable', async () => {
    const alice = await makeUser('alice');
    const agent = createAgent(alice.id, { name: 'Gone soon' });
    const conversationId = crypto.randomUUID();
    getDb()
      .$client.prepare('insert into conversations (id, owner_id, agent_id, agent_name, updated_at) values (?, ?, ?, ?, ?)')
      .run(conversationId, alice.id, agent.id, agent.name, Date.now());
    deleteAgent(alice.id, agent.id);
    expect(findAgent(alice.id, agent.id)).toBeNull();
    expect(appError(() => deleteAgent(alice.id, agent.id)).status).toBe(404);
    const conversation = getDb().$client.prepare('select agent_id, agent_name from conversations where id = ?').get(conversationId);
    expect(conversation).toEqual({ agent_id: null, agent_name: 'Gone soon' });
  });

  it('frees the name for reuse', async () => {
    const alice = await makeUser('alice');
    const agent = createAgent(alice.id, { name: 'Reusable' });
    deleteAgent(alice.id, agent.id);
    expect(createAgent(alice.id, { name: 'REUSABLE' }).name).toBe('REUSABLE');
  });
});

describe("agent catalog: doesn't touch other users' rows", () => {
  it('bob can neither get, list, search, update nor delete alice’s agents, and her rows stay unchanged', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const secret = createAgent(alice.id, { name: 'Secret', description: 'alice only', toolGroups: ['utility'] });
    const before = storedRows(alice.id);

    expect(appError(() => getAgent(bob.id, secret.id)).status).toBe(404);
    expect(findAgent(bob.id, secret.id)).toBeNull();
    expect(listAgents(bob.id)).toEqual([]);
    expect(listAgents(bob.id, 'secret')).toEqual([]);
    expect(listAgents(bob.id, 'alice')).toEqual([]);
    const updateErr = appError(() => updateAgent(bob.id, secret.id, { name: 'Stolen', description: 'bob was here' }));
    expect([updateErr.status, updateErr.message]).toEqual([404, 'Agent not found']);
    expect(appError(() => updateAgent(bob.id, secret.id, {})).status).toBe(404);
    const deleteErr = appError(() => deleteAgent(bob.id, secret.id));
    expect([deleteErr.status, deleteErr.message]).toEqual([404, 'Agent not found']);

    expect(storedRows(alice.id)).toEqual(before);
    expect(names(alice.id)).toEqual(['Secret']);
  });

  it('a 404 across owners is indistinguishable from a missing id', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const agent = createAgent(alice.id, { name: 'Hidden' });
    const foreign = appError(() => getAgent(bob.id, agent.id));
    const missing = appError(() => getAgent(bob.id, crypto.randomUUID()));
    expect(foreign.toBody()).toEqual(missing.toBody());
  });
});
