import { strFromU8, unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { GET as exportRoute } from '@/app/api/v1/teams/[id]/export/route';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { BASE, PNG, uploaded, type TestUser } from './helpers';

let ann: TestUser;
let bob: TestUser;
let teamId: string;

const exportZip = (user: TestUser, id: string) =>
  exportRoute(new Request(`${BASE}/teams/${id}/export?format=zip`, { headers: user.auth }), { params: Promise.resolve({ id }) });

beforeAll(async () => {
  ann = await makeUser('ann');
  bob = await makeUser('bob');
  teamId = (await makeTeam(ann.id)).team.id;
});

describe('team export as ZIP', () => {
  it('holds team.md, team.json and every workspace file (latest version), names in CJK and emoji included', async () => {
    await uploaded(ann, 'team', teamId, '報告 🚀.md', new TextEncoder().encode('# 報告\n'));
    await uploaded(ann, 'team', teamId, 'pixel.png', PNG);
    const res = await exportZip(ann, teamId);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="[^"]+\.zip"/);
    const entries = unzipSync(new Uint8Array(await res.arrayBuffer()));
    expect(Object.keys(entries).sort()).toEqual(['files/pixel.png', 'files/報告 🚀.md', 'team.json', 'team.md']);
    expect(strFromU8(entries['files/報告 🚀.md']!)).toBe('# 報告\n');
    expect(Buffer.from(entries['files/pixel.png']!).equals(Buffer.from(PNG))).toBe(true);
    expect(JSON.parse(strFromU8(entries['team.json']!))).toMatchObject({ format: 'ensemble.team-export' });
    expect(strFromU8(entries['team.md']!)).toContain('Ship the thing');
  });

  it('another owner gets 404 and no byte of the archive', async () => {
    const res = await exportZip(bob, teamId);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/json/);
  });
});
