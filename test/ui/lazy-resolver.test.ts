import { describe, expect, it, vi } from 'vitest';
import type { FieldValues, Resolver, ResolverOptions, ResolverResult } from 'react-hook-form';
import { lazyResolver } from '@/lib/forms/lazy-resolver';

type Values = { name: string };
const options = { fields: {}, shouldUseNativeValidation: false } as ResolverOptions<Values>;

/** A resolver that refuses an empty name, as a zod schema's would. */
const real: Resolver<Values> = async (values): Promise<ResolverResult<Values>> =>
  values.name ? { values, errors: {} } : { values: {}, errors: { name: { type: 'too_small', message: 'Enter a name' } } };

describe('lazyResolver', () => {
  it('loads nothing until the first check, then checks with what it loaded', async () => {
    const load = vi.fn(async () => real);
    const resolver = lazyResolver(load);
    expect(load).not.toHaveBeenCalled();
    await expect(resolver({ name: '' }, undefined, options)).resolves.toMatchObject({ errors: { name: { message: 'Enter a name' } } });
    await expect(resolver({ name: 'Ada' }, undefined, options)).resolves.toEqual({ values: { name: 'Ada' }, errors: {} });
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('loads once for checks that start together and for a preload before them', async () => {
    let finish: (r: Resolver<Values>) => void = () => undefined;
    const load = vi.fn(() => new Promise<Resolver<Values>>((resolve) => (finish = resolve)));
    const resolver = lazyResolver(load);
    resolver.preload();
    const first = resolver({ name: 'a' }, undefined, options);
    const second = resolver({ name: '' }, undefined, options);
    finish(real);
    expect((await first).errors).toEqual({});
    expect((await second).errors).toHaveProperty('name');
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('reports a failed load to the check, and the next check loads again (it must not stay broken after going offline once)', async () => {
    const load = vi.fn<() => Promise<Resolver<Values>>>().mockRejectedValueOnce(new Error('chunk failed')).mockResolvedValue(real);
    const resolver = lazyResolver(load);
    await expect(resolver({ name: 'a' }, undefined, options)).rejects.toThrow('chunk failed');
    await expect(resolver({ name: 'a' }, undefined, options)).resolves.toMatchObject({ errors: {} });
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('a failed preload is not thrown anywhere; the first check tries again', async () => {
    const load = vi.fn<() => Promise<Resolver<Values>>>().mockRejectedValueOnce(new Error('offline')).mockResolvedValue(real);
    const resolver = lazyResolver<Values & FieldValues>(load);
    resolver.preload();
    await vi.waitFor(() => expect(load).toHaveBeenCalledTimes(1));
    await expect(resolver({ name: '' }, undefined, options)).resolves.toMatchObject({ errors: { name: {} } });
    expect(load).toHaveBeenCalledTimes(2);
  });
});
