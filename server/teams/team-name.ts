import 'server-only';
import { teamNameKey } from '@/lib/team-name';
import { statement } from '@/server/db/statement';
import { AppError } from '@/server/http/errors';

// An owner has at most LIMITS.team.perOwner teams: their names are compared here, as keys, rather than by an index
// (SQLite's lower() folds ASCII letters only; teamNameKey folds every letter, as agent names are folded).
const ownersTeamNames = statement('select id, name from teams where owner_id = ?');

/** The owner's team names, except one team's own (a rename may keep its name or change its case). */
export async function teamNamesOf(ownerId: string, exceptTeamId?: string): Promise<string[]> {
  const rows = await ownersTeamNames.all<{ id: string; name: string }>(ownerId);
  return rows.filter((r) => r.id !== exceptTeamId).map((r) => r.name);
}

/**
 * 409 `team_name_taken` (with `fields.name`, as the forms show it) when the owner already has a team of this name,
 * compared without case. Call inside the writeTx that writes the name (the read then runs in it): writes are
 * serialized, so two creations of one name can't both pass.
 */
export async function assertTeamNameFree(ownerId: string, name: string, exceptTeamId?: string): Promise<void> {
  const key = teamNameKey(name);
  // The team that holds the name, as it is written: "launch" refused beside "Launch" says "Launch".
  const taken = (await teamNamesOf(ownerId, exceptTeamId)).find((held) => teamNameKey(held) === key);
  if (taken === undefined) return;
  const message = `You already have a team named "${taken.trim()}" (names are compared without case)`;
  throw new AppError(409, 'team_name_taken', message, { name: message });
}
