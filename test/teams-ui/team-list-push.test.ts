import { describe, expect, it } from 'vitest';
import { parseTeamListPush } from '@/components/teams/use-team-list-events';

describe('parseTeamListPush', () => {
  it('reads changed team ids or "re-read", and refuses anything else from the wire', () => {
    expect(parseTeamListPush('{"teamIds":["t1","t2"]}')).toEqual(['t1', 't2']);
    expect(parseTeamListPush('{"teamIds":null}')).toBeNull();
    for (const raw of ['{"teamIds":[1]}', '{"teamIds":"t1"}', '{}', 'null', 'not json']) expect(parseTeamListPush(raw), raw).toBeUndefined();
  });
});
