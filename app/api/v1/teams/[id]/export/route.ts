import { z } from 'zod';
import { requireUser } from '@/server/auth/require-user';
import { downloadResponse } from '@/server/http/download';
import { otherMethods } from '@/server/http/method-not-allowed';
import { route } from '@/server/http/route';
import { parseOrThrow } from '@/server/http/validation';
import { exportTeam } from '@/server/teams/export';
import { exportTeamZip } from '@/server/teams/export-zip';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

const exportQuerySchema = z.object({ format: z.enum(['md', 'json', 'zip']) }).strict();

/**
 * GET /api/v1/teams/:id/export?format=md|json|zip — the team as a download, streamed: each pull reads one batch of
 * jobs (server/teams/export.ts), or for zip one chunk of the archive (team.md, team.json and the workspace's files:
 * server/teams/export-zip.ts), so a slow reader holds back the reading, not the server's memory.
 */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const { format } = parseOrThrow(exportQuerySchema, Object.fromEntries(new URL(req.url).searchParams));
  const doc = format === 'zip' ? await exportTeamZip(user.id, id) : await exportTeam(user.id, id, format);
  return downloadResponse(doc);
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
