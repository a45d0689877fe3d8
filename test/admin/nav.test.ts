import { describe, expect, it } from 'vitest';
import { navItemsFor } from '@/components/shell/nav-items';
import { isAdmin } from '@/server/admin/access';
import { setAccountDisabled } from '@/server/admin/accounts';
import { makeAccount } from './helpers';

describe('the Admin section link', () => {
  it('is listed last for admins and not at all for members', () => {
    expect(navItemsFor({ admin: true }).map((i) => i.label)).toEqual(['Agents', 'Teams', 'Conversations', 'Batches', 'Inbox', 'Skills', 'Settings', 'Admin']);
    expect(navItemsFor({ admin: false }).map((i) => i.label)).toEqual(['Agents', 'Teams', 'Conversations', 'Batches', 'Inbox', 'Skills', 'Settings']);
  });

  it('follows the role in the database: members and disabled admins are not admins', async () => {
    const ann = await makeAccount('ann', 'admin');
    const cy = await makeAccount('cy', 'admin');
    const bo = await makeAccount('bo', 'member');
    expect(await Promise.all([isAdmin(ann.id), isAdmin(cy.id), isAdmin(bo.id), isAdmin('nobody')])).toEqual([true, true, false, false]);
    await setAccountDisabled(ann.id, cy.id, true);
    expect(await isAdmin(cy.id)).toBe(false);
  });
});
