import { signIn } from '../support/action-session';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminStateSnapshot, makeAccount } from '../admin/helpers';

const route = await import('@/app/api/v1/admin/prices/route');
const runRoute = await import('@/app/api/v1/runs/[id]/route');
const actions = await import('@/app/(app)/admin/price-actions');
const { getDb, openDatabase, schema } = await import('@/server/db');
const { costNanos } = await import('@/lib/money');
const { listPrices, priceOf, runCostNanos, setPrice } = await import('@/server/providers/prices');
const { createProvider } = await import('@/server/providers/store');
const { conversationWith, send } = await import('../agents/helpers');
const { startOpenAiStub } = await import('../agents/openai-stub');
const { call } = await import('../support/teams');

/**
 * Model prices (ADR 048): the admin sets them per model string; a run is priced with its model's price when it
 * finishes and keeps that cost; unknown price or unreported usage is an unknown cost, never $0.
 */
const put = (auth: Record<string, string> | undefined, body: unknown) => call(route.PUT, { method: 'PUT', headers: auth, body });
const fresh = () => `lab-${crypto.randomUUID().slice(0, 6)}:model-${crypto.randomUUID().slice(0, 4)}`;

let stub: Awaited<ReturnType<typeof startOpenAiStub>>;
beforeAll(async () => {
  // On Postgres the first plain read (getDb) needs the migrations applied, as start-up does before serving.
  await openDatabase();
  stub = await startOpenAiStub();
});
afterAll(async () => {
  await stub.close();
});

describe('the prices store', () => {
  it('sets, changes and forgets a model’s prices; a one-sided price keeps the other side unknown', async () => {
    const model = fresh();
    expect(await priceOf(model)).toBeNull();
    expect(await setPrice({ model, inputPerMillion: 150_000, outputPerMillion: 600_000 })).toMatchObject({ model, inputPerMillion: '0.15', outputPerMillion: '0.60' });
    expect(await priceOf(model)).toEqual({ inputMicrosPerMillion: 150_000, outputMicrosPerMillion: 600_000 });
    // Run twice (a Postgres serializable retry re-runs the body): the same single row.
    await setPrice({ model, inputPerMillion: 1, outputPerMillion: null });
    await setPrice({ model, inputPerMillion: 1, outputPerMillion: null });
    expect((await listPrices()).filter((p) => p.model === model)).toEqual([
      { model, inputPerMillion: '0.000001', outputPerMillion: null, updatedAt: expect.any(String) },
    ]);
    expect(await setPrice({ model, inputPerMillion: null, outputPerMillion: null })).toBeNull();
    expect(await priceOf(model)).toBeNull();
  });

  it('a flood of concurrent changes to one model leaves one row holding one of the prices sent, never a mix', async () => {
    const model = fresh();
    const sent = Array.from({ length: 40 }, (_, i) => ({ model, inputPerMillion: i * 1_000, outputPerMillion: i * 1_000 + 1 }));
    const answers = await Promise.all(sent.map((p) => setPrice(p)));
    expect(answers.every((a) => a?.model === model)).toBe(true);
    const rows = await getDb().select().from(schema.modelPrices).where(eq(schema.modelPrices.model, model));
    expect(rows).toHaveLength(1);
    // What must not happen: an input price from one request stored with another request's output price.
    expect(rows[0]!.outputMicrosPerMillion).toBe(rows[0]!.inputMicrosPerMillion! + 1);
  });

  it('runCostNanos: no calls cost nothing; any call with unreported usage makes the cost unknown, never 0', () => {
    const price = { inputMicrosPerMillion: 2_000_000, outputMicrosPerMillion: 8_000_000 };
    expect(runCostNanos({ inputTokens: 0, outputTokens: 0, modelCalls: 0, unreportedCalls: 0 }, null)).toBe(0);
    expect(runCostNanos({ inputTokens: 750, outputTokens: 250, modelCalls: 1, unreportedCalls: 0 }, price)).toBe(3_500_000);
    expect(runCostNanos({ inputTokens: 750, outputTokens: 250, modelCalls: 2, unreportedCalls: 1 }, price)).toBeNull();
    expect(runCostNanos({ inputTokens: 0, outputTokens: 0, modelCalls: 1, unreportedCalls: 1 }, price)).toBeNull();
    expect(runCostNanos({ inputTokens: 750, outputTokens: 250, modelCalls: 1, unreportedCalls: 0 }, null)).toBeNull();
  });
});

describe('a run is priced when it finishes, and keeps its cost', () => {
  it('scripted: unknown without a price; the price then; a later price change leaves finished runs as they were', async () => {
    const owner = await makeAccount('owner', 'member');
    const { conversation } = await conversationWith(owner.id, { model: 'scripted' });
    await setPrice({ model: 'scripted', inputPerMillion: null, outputPerMillion: null });

    const unpriced = await send(owner.id, conversation.id, '/tokens 1000\n/reply first');
    expect(unpriced).toMatchObject({ status: 'success', inputTokens: 750, outputTokens: 250, costNanos: null });

    await setPrice({ model: 'scripted', inputPerMillion: 2_000_000, outputPerMillion: 8_000_000 });
    const priced = await send(owner.id, conversation.id, '/tokens 1000\n/reply second');
    expect(priced).toMatchObject({ status: 'success', inputTokens: 750, outputTokens: 250, costNanos: 3_500_000 });

    await setPrice({ model: 'scripted', inputPerMillion: 100_000_000, outputPerMillion: 100_000_000 });
    const api = await call(runRoute.GET, { headers: owner.auth, params: { id: priced.id } });
    expect(api.body).toMatchObject({ run: { id: priced.id, cost: '0.0035' } });
    const old = await call(runRoute.GET, { headers: owner.auth, params: { id: unpriced.id } });
    // What must not happen: the unknown cost shown as "0", or a past cost rewritten by a price change.
    expect(old.body).toMatchObject({ run: { id: unpriced.id, cost: null } });
    await setPrice({ model: 'scripted', inputPerMillion: null, outputPerMillion: null });
  });

  it('a managed provider’s model is priced by its own `slug:model` string, not another model of the same provider', async () => {
    await createProvider({ kind: 'openai', slug: 'priced-stub', name: 'Priced stub', baseUrl: stub.baseURL, apiKey: 'sk-priced-1234' });
    await setPrice({ model: 'priced-stub:gpt-4o', inputPerMillion: 2_500_000, outputPerMillion: 10_000_000 });
    await setPrice({ model: 'priced-stub:other', inputPerMillion: 999_000_000, outputPerMillion: 999_000_000 });
    const owner = await makeAccount('owner', 'member');
    const { conversation } = await conversationWith(owner.id, { model: 'priced-stub:gpt-4o' });
    const run = await send(owner.id, conversation.id, 'hello');
    expect(run.status).toBe('success');
    expect(run.unreportedCalls).toBe(0);
    expect(run.inputTokens + run.outputTokens).toBeGreaterThan(0);
    const expected = costNanos({ input: run.inputTokens, output: run.outputTokens }, { inputMicrosPerMillion: 2_500_000, outputMicrosPerMillion: 10_000_000 });
    expect(run.costNanos).toBe(expected);
  });

  it('another owner cannot read a run’s cost: GET /runs/:id is 404 for them, as for a missing run', async () => {
    const owner = await makeAccount('owner', 'member');
    const other = await makeAccount('other', 'member');
    const { conversation } = await conversationWith(owner.id);
    const run = await send(owner.id, conversation.id, '/reply mine');
    const foreign = await call(runRoute.GET, { headers: other.auth, params: { id: run.id } });
    const missing = await call(runRoute.GET, { headers: other.auth, params: { id: crypto.randomUUID() } });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
  });
});

describe('GET/PUT /api/v1/admin/prices', () => {
  it('an admin lists and sets prices as decimal strings; both empty forgets them', async () => {
    const admin = await makeAccount('admin', 'admin');
    const model = fresh();
    const set = await put(admin.auth, { model, inputPerMillion: '3', outputPerMillion: '15.000001' });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ price: { model, inputPerMillion: '3.00', outputPerMillion: '15.000001', updatedAt: expect.any(String) } });
    const listed = await call(route.GET, { headers: admin.auth });
    expect((listed.body as { prices: Array<{ model: string }> }).prices).toContainEqual(expect.objectContaining({ model, inputPerMillion: '3.00' }));
    expect(await put(admin.auth, { model, inputPerMillion: '', outputPerMillion: null })).toMatchObject({ status: 200, body: { price: null } });
    expect(await priceOf(model)).toBeNull();
  });

  it('refuses one past each limit and non-decimal text (CJK, full-width, emoji, numbers) naming each field; nothing stored', async () => {
    const admin = await makeAccount('admin', 'admin');
    const model = fresh();
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ inputPerMillion: '1000.000001', outputPerMillion: null }, 'inputPerMillion'],
      [{ inputPerMillion: null, outputPerMillion: '0.0000001' }, 'outputPerMillion'],
      [{ inputPerMillion: '二', outputPerMillion: null }, 'inputPerMillion'],
      [{ inputPerMillion: '１', outputPerMillion: null }, 'inputPerMillion'],
      [{ inputPerMillion: null, outputPerMillion: '💸' }, 'outputPerMillion'],
      [{ inputPerMillion: 0.15, outputPerMillion: null }, 'inputPerMillion'],
      [{ inputPerMillion: '-0.01', outputPerMillion: null }, 'inputPerMillion'],
    ];
    for (const [prices, field] of bad) {
      const res = await put(admin.auth, { model, ...prices });
      expect(res.status, JSON.stringify(prices)).toBe(422);
      expect(Object.keys((res.body.error as { fields: Record<string, string> }).fields)).toEqual([field]);
    }
    const badModel = await put(admin.auth, { model: 'scripted model 🚀', inputPerMillion: '1', outputPerMillion: '1' });
    expect((badModel.body.error as { fields: Record<string, string> }).fields.model).toMatch(/scripted/);
    expect(await priceOf(model)).toBeNull();
    // At the limits: accepted.
    expect((await put(admin.auth, { model, inputPerMillion: '1000', outputPerMillion: '0.000001' })).status).toBe(200);
    expect(await priceOf(model)).toEqual({ inputMicrosPerMillion: 1_000_000_000, outputMicrosPerMillion: 1 });
  });

  it('a member gets 404 (as for any admin route) and a signed-out caller 401; nothing changes', async () => {
    const member = await makeAccount('member', 'member');
    const before = JSON.stringify(await getDb().select().from(schema.modelPrices));
    const state = await adminStateSnapshot();
    expect((await call(route.GET, { headers: member.auth })).status).toBe(404);
    expect((await put(member.auth, { model: 'scripted', inputPerMillion: '0', outputPerMillion: '0' })).status).toBe(404);
    expect((await put(undefined, { model: 'scripted', inputPerMillion: '0', outputPerMillion: '0' })).status).toBe(401);
    // What must not happen: a member making every run of a model free (or dear).
    expect(JSON.stringify(await getDb().select().from(schema.modelPrices))).toBe(before);
    expect(await adminStateSnapshot()).toBe(state);
  });
});

describe('setModelPriceAction', () => {
  it('an admin sets a price; a member gets not_found and nothing changes; field errors name the field', async () => {
    const admin = await makeAccount('admin', 'admin');
    const member = await makeAccount('member', 'member');
    const model = fresh();
    signIn(member);
    expect(await actions.setModelPriceAction({ model, inputPerMillion: '1', outputPerMillion: '2' })).toEqual({
      ok: false,
      error: { code: 'not_found', message: 'Resource not found' },
    });
    expect(await priceOf(model)).toBeNull();
    signIn(admin);
    expect(await actions.setModelPriceAction({ model, inputPerMillion: '1', outputPerMillion: '2' })).toMatchObject({
      ok: true,
      data: { model, inputPerMillion: '1.00', outputPerMillion: '2.00' },
    });
    expect(await actions.setModelPriceAction({ model, inputPerMillion: '1001', outputPerMillion: '2' })).toMatchObject({
      ok: false,
      error: { code: 'validation_error', fields: { inputPerMillion: expect.stringMatching(/\$1,000/) } },
    });
    expect(await priceOf(model)).toEqual({ inputMicrosPerMillion: 1_000_000, outputMicrosPerMillion: 2_000_000 });
  });
});
