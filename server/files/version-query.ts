import 'server-only';
import { z } from 'zod';

const revision = z.coerce.number({ error: 'A revision is a whole number from 1' }).int('A revision is a whole number from 1').min(1, 'A revision is a whole number from 1');

/** ?revision=N (optional: the latest) and, for content, ?inline=1. */
export const versionQuery = z.strictObject({ revision: revision.optional(), inline: z.enum(['1', '0']).optional() });
/** ?from=N&to=M */
export const diffQuery = z.strictObject({ from: revision, to: revision });

export const searchParams = (req: Request) => Object.fromEntries(new URL(req.url).searchParams);
