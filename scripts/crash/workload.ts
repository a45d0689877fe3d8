/**
 * The crash test's workload: a deterministic plan of requests (seeded), and the HTTP client that sends them.
 * Every send and answer carries an idempotency key fixed in the plan, so a retry after a lost response is the
 * same request; only acknowledged ones count.
 */

export type Kind = 'plain' | 'handoff' | 'handoff-fail' | 'ask';

/**
 * How a member answers a peer's request. The scripted model never obeys directives inside a peer's request
 * (ADR 012), so members are scripted the trusted way, by their owner's instructions: an echo answers
 * "<name> received: <first line>", a failer fails.
 */
export type Role = 'echo' | 'failer';
export type Member = { id: string; name: string; conversationId: string; role: Role };

const PEER_FAILURE = 'boom';
/** The owner-written instructions of each role (they script every request turn; the person's directives win). */
export const ROLE_INSTRUCTIONS: Record<Role, string> = {
  echo: '/sleep 30',
  failer: `/sleep 30\n/fail ${PEER_FAILURE}`,
};
/** Alternating roles, so with an even team size every member has a teammate of each role. */
export const roleFor = (memberIndex: number): Role => (memberIndex % 2 === 0 ? 'echo' : 'failer');
export type Team = { id: string; ownerIndex: number; members: Member[] };
export type Owner = { userId: string; token: string };

export type PlannedRequest = {
  index: number;
  kind: Kind;
  team: Team;
  member: Member;
  /** For handoffs: the teammate the member asks. */
  target: Member | null;
  text: string;
  draftKey: string;
};

export type Ack = { jobId: string; created: boolean; attempts: number };

/** A small seeded PRNG (mulberry32): the same seed gives the same plan. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const between = (random: () => number, min: number, max: number) => Math.floor(min + random() * (max - min + 1));

/** The final answers the scripted model gives for each kind (checked after the run). */
export const expected = {
  reply: (i: number) => `r-${i}`,
  handed: (i: number) => `handed-${i}`,
  /** What the asking member sends its teammate. */
  peerRequest: (i: number) => `ok-${i}`,
  /** An echo member's answer to it. */
  peerReply: (i: number, target: string) => `${target} received: ok-${i}`,
  peerFailure: PEER_FAILURE,
  answer: (i: number) => `choice-${i}`,
  accepted: (i: number) => `Clarification accepted: choice-${i}.`,
  handoffRequestId: (i: number) => `h-${i}`,
};

/**
 * Each block of requests opens with a burst: BURST long plain requests of one owner (owners take turns), each to
 * another of its members, so that owner queues more than the shared cap (LIMITS.scheduler.maxSlotsPerOwnerWhenShared)
 * while the other owner's requests keep coming: the fairness check (fairness.ts) then has admissions at the cap.
 */
const BLOCK = 36;
const BURST = 9;
const BURST_SLEEP_MS = [4_000, 8_000] as const;

/** The team and member of a request: a burst's k-th goes to its owner's k-th conversation; the rest cycle the teams. */
function placeRequest(index: number, teams: Team[], random: () => number): { team: Team; memberIndex: number; burst: boolean } {
  const k = index % BLOCK;
  const owners = [...new Set(teams.map((t) => t.ownerIndex))];
  if (k < BURST && owners.length > 1) {
    const owner = owners[Math.floor(index / BLOCK) % owners.length]!;
    const own = teams.filter((t) => t.ownerIndex === owner);
    const team = own[k % own.length]!;
    return { team, memberIndex: Math.floor(k / own.length) % team.members.length, burst: true };
  }
  const team = teams[index % teams.length]!;
  return { team, memberIndex: between(random, 0, team.members.length - 1), burst: false };
}

export function planRequests(count: number, teams: Team[], random: () => number): PlannedRequest[] {
  const plan: PlannedRequest[] = [];
  for (let index = 0; index < count; index++) {
    const { team, memberIndex, burst } = placeRequest(index, teams, random);
    const member = team.members[memberIndex]!;
    const roll = random();
    const kind: Kind = burst || roll < 0.5 ? 'plain' : roll < 0.7 ? 'handoff' : roll < 0.8 ? 'handoff-fail' : 'ask';
    const sleep = `/sleep ${burst ? between(random, BURST_SLEEP_MS[0], BURST_SLEEP_MS[1]) : between(random, 20, 200)}`;
    let target: Member | null = null;
    let text: string;
    if (kind === 'plain') {
      text = `${sleep}\n/reply ${expected.reply(index)}`;
    } else if (kind === 'ask') {
      text = `${sleep}\n/ask Which option for request ${index}?`;
    } else {
      target = nextWithRole(team.members, memberIndex, kind === 'handoff' ? 'echo' : 'failer');
      const args = { member: target.name, text: expected.peerRequest(index), request_id: expected.handoffRequestId(index) };
      text = `/call send_member ${JSON.stringify(args)}\n${sleep}\n/reply ${expected.handed(index)}`;
    }
    plan.push({ index, kind, team, member, target, text, draftKey: `crash-${index}` });
  }
  return plan;
}

/** The first teammate after memberIndex (cyclically) with the role. */
function nextWithRole(members: Member[], memberIndex: number, role: Role): Member {
  for (let step = 1; step < members.length; step++) {
    const member = members[(memberIndex + step) % members.length]!;
    if (member.role === role) return member;
  }
  throw new Error(`no teammate of member ${memberIndex} has the role ${role}`);
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`HTTP ${status}: ${body.slice(0, 300)}`);
  }
}

/** One JSON call. A network failure or 5xx is "no acknowledgement" (retry); 4xx is a real refusal. */
export async function api<T>(baseUrl: string, token: string, method: string, url: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${baseUrl}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  if (!res.ok) throw new HttpError(res.status, text);
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T };
}

export const isRetryable = (err: unknown) => !(err instanceof HttpError) || err.status >= 500;
