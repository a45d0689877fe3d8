import 'server-only';
import { eq } from 'drizzle-orm';
import { schema, writeTx } from '@/server/db';
import { open, seal, sealedUnderCurrentKey } from './secret-box';

export type ResealReport = { resealed: string[]; current: string[]; unreadable: string[] };

/**
 * The end of a secret rotation (ADR 043): every stored key not sealed under the current secret is opened (with
 * ENSEMBLE_SECRET_KEY_PREVIOUS) and sealed again under ENSEMBLE_SECRET_KEY, in one transaction. Keys no configured
 * secret opens are listed by provider slug and left as they are (an admin enters them again). Idempotent.
 */
export async function resealProviderKeys(): Promise<ResealReport> {
  return writeTx(async (tx) => {
    const report: ResealReport = { resealed: [], current: [], unreadable: [] };
    const rows = await tx.select({ id: schema.providers.id, slug: schema.providers.slug, cipher: schema.providers.apiKeyCipher }).from(schema.providers);
    for (const row of rows) {
      if (!row.cipher) continue;
      if (sealedUnderCurrentKey(row.cipher)) {
        report.current.push(row.slug);
        continue;
      }
      let plain: string;
      try {
        plain = open(row.cipher, row.id);
      } catch {
        report.unreadable.push(row.slug);
        continue;
      }
      await tx.update(schema.providers).set({ apiKeyCipher: seal(plain, row.id) }).where(eq(schema.providers.id, row.id));
      report.resealed.push(row.slug);
    }
    return report;
  });
}
