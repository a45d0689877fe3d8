/**
 * Seeds the template database of scripts/bench-processes.ts (run by it as a child process, DATABASE_URL set):
 * migrates, creates BENCH_OWNERS owners with two agents each and BENCH_TEAMS_PER_OWNER teams each, and queues
 * BENCH_JOBS requests of `/sleep BENCH_SLEEP_MS` spread round-robin over every team's members, owners interleaved.
 * No scheduler runs here: every job stays queued until the workers start.
 */
import { benchOwner } from './bench-owner';

const count = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const JOBS = count('BENCH_JOBS', 400);
const OWNERS = count('BENCH_OWNERS', 10);
const TEAMS_PER_OWNER = count('BENCH_TEAMS_PER_OWNER', 8);
const SLEEP_MS = count('BENCH_SLEEP_MS', 50);

async function main() {
  const { sendRequest } = await import('@/server/teams/requests');
  const { closeDb, openDatabase } = await import('@/server/db');
  const { closeCheckpointer } = await import('@/server/agents/checkpointer');

  await openDatabase();
  const owners = [];
  for (let o = 0; o < OWNERS; o++) {
    const { user, teams } = await benchOwner(`owner${o}`, TEAMS_PER_OWNER);
    owners.push({ userId: user.id, teams });
  }
  // Team by team, owner by owner: consecutive jobs belong to different owners and teams.
  const targets = [];
  for (let t = 0; t < TEAMS_PER_OWNER; t++) {
    for (const owner of owners) {
      const team = owner.teams[t]!;
      for (const member of team.members) targets.push({ ownerId: owner.userId, teamId: team.id, memberId: member.id });
    }
  }
  for (let i = 0; i < JOBS; i++) {
    const target = targets[i % targets.length]!;
    await sendRequest(target.ownerId, target.teamId, { memberIds: [target.memberId], text: `/sleep ${SLEEP_MS}\n/reply done`, draftKey: `bench-${i}` });
  }
  closeCheckpointer();
  await closeDb();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
