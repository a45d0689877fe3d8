// test: own process: sets ENSEMBLE_SECRET_KEY per test
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { getDb, schema } from '@/server/db';
import { resolveProvider } from '@/server/providers/resolve';
import { resealProviderKeys } from '@/server/providers/reseal';
import { createProvider } from '@/server/providers/store';

const OLD = 'o'.repeat(40);
const NEW = 'n'.repeat(40);

afterEach(() => {
  delete process.env.ENSEMBLE_SECRET_KEY;
  delete process.env.ENSEMBLE_SECRET_KEY_PREVIOUS;
});

describe('rotating the secret that seals provider keys', () => {
  it('re-seals every key under the new secret; afterwards the old secret is no longer needed', async () => {
    process.env.ENSEMBLE_SECRET_KEY = OLD;
    await createProvider({ kind: 'openai', slug: 'rot-a', name: 'A', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-a-1111' });
    await createProvider({ kind: 'ollama', slug: 'rot-b', name: 'B', baseUrl: 'http://127.0.0.1:9' });

    process.env.ENSEMBLE_SECRET_KEY = NEW;
    // Before the rotation is finished, without the old secret the provider can't be used, and says why.
    await expect(resolveProvider('rot-a', 'rot-a:m')).rejects.toThrow(/ENSEMBLE_SECRET_KEY_PREVIOUS/);

    process.env.ENSEMBLE_SECRET_KEY_PREVIOUS = OLD;
    expect(await resealProviderKeys()).toEqual({ resealed: ['rot-a'], current: [], unreadable: [] });
    expect(await resealProviderKeys()).toEqual({ resealed: [], current: ['rot-a'], unreadable: [] });

    delete process.env.ENSEMBLE_SECRET_KEY_PREVIOUS;
    expect((await resolveProvider('rot-a', 'rot-a:m')).apiKey).toBe('sk-a-1111');
    const rows = await getDb().select().from(schema.providers);
    for (const row of rows) expect(JSON.stringify(row)).not.toContain('sk-a-1111');
  });

  it('lists a key no configured secret opens, and leaves it as it was', async () => {
    process.env.ENSEMBLE_SECRET_KEY = OLD;
    await createProvider({ kind: 'openai', slug: 'rot-c', name: 'C', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-c-3333' });
    const rowC = () => getDb().select().from(schema.providers).where(eq(schema.providers.slug, 'rot-c'));
    const [before] = await rowC();
    process.env.ENSEMBLE_SECRET_KEY = NEW;
    expect(await resealProviderKeys()).toMatchObject({ resealed: [], unreadable: ['rot-c'] });
    const [after] = await rowC();
    expect(after!.apiKeyCipher).toBe(before!.apiKeyCipher);
  });
});
