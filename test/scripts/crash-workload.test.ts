import { describe, expect, it } from 'vitest';
import { planRequests, rng, roleFor, type Team } from '@/scripts/crash/workload';

// The crash test's plan (scripts/crash/workload.ts): each block of 36 opens with a burst of 9 long plain requests of
// one owner, on 9 different conversations, so that owner queues past the shared cap of 6.

const teams: Team[] = [0, 1].flatMap((ownerIndex) =>
  [0, 1, 2].map((t) => ({
    id: `team-${ownerIndex}-${t}`,
    ownerIndex,
    members: [0, 1, 2, 3].map((k) => ({ id: `m-${ownerIndex}-${t}-${k}`, name: `M${k}`, conversationId: `c-${ownerIndex}-${t}-${k}`, role: roleFor(k) })),
  })),
);
const sleepOf = (text: string) => Number(/\/sleep (\d+)/.exec(text)?.[1]);

describe('crash test plan', () => {
  const plan = planRequests(81, teams, rng(3));

  it('opens each block with a burst of one owner, owners taking turns, each on another conversation', () => {
    for (const [start, owner] of [
      [0, 0],
      [36, 1],
      [72, 0],
    ] as const) {
      const burst = plan.slice(start, start + 9);
      expect(burst.every((p) => p.team.ownerIndex === owner && p.kind === 'plain')).toBe(true);
      expect(new Set(burst.map((p) => p.member.conversationId)).size).toBe(9);
      expect(burst.every((p) => sleepOf(p.text) >= 4_000 && sleepOf(p.text) <= 8_000)).toBe(true);
    }
  });

  it('keeps the rest of a block short and spread over both owners', () => {
    const rest = plan.slice(9, 36);
    expect(rest.every((p) => sleepOf(p.text) <= 200)).toBe(true);
    expect(new Set(rest.map((p) => p.team.ownerIndex))).toEqual(new Set([0, 1]));
    expect(sleepOf(plan[45]!.text)).toBeLessThanOrEqual(200);
  });

  it('plans the same requests for the same seed', () => {
    expect(planRequests(81, teams, rng(3)).map((p) => p.text)).toEqual(plan.map((p) => p.text));
  });
});
