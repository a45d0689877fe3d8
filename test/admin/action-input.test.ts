import { scope } from '../support/action-session';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';

const actions = await import('@/app/(app)/admin/actions');
const providerActions = await import('@/app/(app)/admin/provider-actions');
const priceActions = await import('@/app/(app)/admin/price-actions');
const { createProvider } = await import('@/server/providers/store');
const { adminStateSnapshot, makeAccount } = await import('./helpers');

/**
 * The admin page's actions check their argument like every other action (server/http/action-input.ts): React's
 * action encoding carries more than JSON, so a Date, a Map or a class instance, a non-finite number or JSON nested
 * past LIMITS.jsonMaxDepth is a 422 before the schema sees it, and nothing is written.
 */
const refused = { ok: false, error: { code: 'validation_error', message: expect.any(String), fields: { _: expect.any(String) } } };
const nested = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf : { a: nested(depth - 1, leaf) });

async function asAdmin() {
  const admin = await makeAccount('admin', 'admin');
  scope.headers = new Headers({ ...admin.auth, 'next-action': 'test' });
  return admin;
}

describe('admin actions validate their input like every other action', () => {
  it('createAccountAction: a non-JSON value anywhere in the argument is a 422 and creates no account', async () => {
    await asAdmin();
    const before = await adminStateSnapshot();
    const email = `dee-${crypto.randomUUID().slice(0, 8)}@example.test`;
    // Must not happen: an account created from an argument no JSON request could have carried.
    for (const input of [
      { email, password: 'initial pass', name: new String('Dee') },
      Object.assign(Object.create({ inherited: true }) as object, { email, password: 'initial pass' }),
      { email, password: 'initial pass', name: 'Dee', role: 'member', extra: new Map() },
    ]) {
      expect(await actions.createAccountAction(input)).toEqual(refused);
    }
    expect(await adminStateSnapshot()).toBe(before);
  });

  it('createInvitationAction: a non-finite number or a Date is a 422, nesting at the depth limit is a schema error, one past it a 422', async () => {
    await asAdmin();
    const before = await adminStateSnapshot();
    // Must not happen: an invitation created from an argument no JSON request could have carried.
    expect(await actions.createInvitationAction({ expiresInDays: Number.POSITIVE_INFINITY })).toEqual(refused);
    expect(await actions.createInvitationAction({ note: new Date() })).toEqual(refused);
    const atLimit = await actions.createInvitationAction({ note: nested(LIMITS.jsonMaxDepth - 1, 'x') });
    expect(atLimit).toMatchObject({ ok: false, error: { code: 'validation_error', fields: { note: expect.any(String) } } });
    expect(await actions.createInvitationAction({ note: nested(LIMITS.jsonMaxDepth, 'x') })).toEqual(refused);
    expect(await adminStateSnapshot()).toBe(before);
  });

  it('disable, enable and revoke answer a non-string id with not_found and change nothing', async () => {
    await asAdmin();
    const before = await adminStateSnapshot();
    const notFound = { ok: false, error: { code: 'not_found', message: expect.any(String) } };
    expect(await actions.disableAccountAction({ toString: () => 'x' })).toEqual(notFound);
    expect(await actions.enableAccountAction(['x'])).toEqual(notFound);
    expect(await actions.revokeInvitationAction(42)).toEqual(notFound);
    expect(await adminStateSnapshot()).toBe(before);
  });

  it('the provider and price actions: a non-JSON value is a 422 and writes nothing; a non-string id is not_found', async () => {
    await asAdmin();
    const provider = await createProvider({ kind: 'openai', slug: `v-${crypto.randomUUID().slice(0, 6)}`, name: 'V', baseUrl: 'http://127.0.0.1:9/v1' });
    const before = await adminStateSnapshot();
    const slug = `w-${crypto.randomUUID().slice(0, 6)}`;
    // Must not happen: a provider or price written from an argument no JSON request could have carried.
    expect(await providerActions.createProviderAction({ kind: 'ollama', slug, name: new String('W'), baseUrl: 'http://127.0.0.1:9' })).toEqual(refused);
    expect(await providerActions.updateProviderAction(provider.id, { name: 'Renamed', maxConcurrent: Number.NaN })).toEqual(refused);
    expect(await priceActions.setModelPriceAction({ model: 'scripted', inputPerMillion: '1', outputPerMillion: '2', at: new Date() })).toEqual(refused);
    const notFound = { ok: false, error: { code: 'not_found', message: expect.any(String) } };
    expect(await providerActions.deleteProviderAction({ toString: () => provider.id })).toEqual(notFound);
    expect(await providerActions.testProviderAction([provider.id])).toEqual(notFound);
    expect(await adminStateSnapshot()).toBe(before);
    // The same arguments as plain JSON are taken: the refusals above were the encoding's, not the values'.
    expect(await providerActions.updateProviderAction(provider.id, { name: 'Renamed' })).toMatchObject({ ok: true, data: { name: 'Renamed' } });
  });
});
