import { expect, test } from './fixtures';
import { PAGE_DATA } from './support/seed';

/**
 * Removing an MCP server a person's agents use (issue 28, ADR 055): the dialog names those agents before the person
 * confirms, and the removal takes the server out of them, so each agent still saves as it is. What must not happen:
 * an agent left naming a server that no longer exists (its GET-then-PATCH answering 422), or another account's agent
 * named in the dialog or changed by the removal.
 */
test('the removal dialog names the agents that use the server; removing it takes it out of them', async ({ page, api, accounts }) => {
  const created = await api.post('/api/v1/mcp/servers', { data: { transport: 'http', name: 'doomed-tools', url: 'https://mcp.example.test/mcp' } });
  expect(created.status(), await created.text()).toBe(201);
  const serverId = ((await created.json()) as { id: string }).id;
  const agentIds: string[] = [];
  for (const name of ['Researcher', 'Editor']) {
    const agent = await api.post('/api/v1/agents', { data: { name, mcpTools: [{ serverId, tools: 'all' }], approvalTools: [`mcp_server:${serverId}`] } });
    expect(agent.status(), await agent.text()).toBe(201);
    agentIds.push(((await agent.json()) as { id: string }).id);
  }
  // Another account's agent of the same name shows nowhere and keeps what it has.
  const other = await accounts.create('other');
  const otherApi = await accounts.apiFor(other);
  const theirs = await otherApi.post('/api/v1/agents', { data: { name: 'Private plans' } });
  expect(theirs.status()).toBe(201);

  await page.goto('/settings');
  const item = page.getByRole('list', { name: 'Your MCP servers' }).getByRole('listitem').filter({ hasText: 'doomed-tools' }).first();
  await item.getByRole('button', { name: 'Remove doomed-tools' }).click(PAGE_DATA);
  const dialog = page.getByRole('dialog', { name: 'Remove doomed-tools?' });
  await expect(dialog.getByText(/^Used by 2 agents\./)).toBeVisible();
  const names = dialog.getByRole('list', { name: 'Agents that use it' }).getByRole('listitem');
  await expect(names).toHaveText(['Editor', 'Researcher']);
  await expect(dialog).not.toContainText('Private plans');
  await dialog.getByRole('button', { name: 'Remove server' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('list', { name: 'Your MCP servers' }).getByText('doomed-tools')).toHaveCount(0);

  for (const id of agentIds) {
    const got = (await (await api.get(`/api/v1/agents/${id}`)).json()) as Record<string, unknown>;
    expect(got).toMatchObject({ mcpTools: [], approvalTools: [] });
    const { id: _id, createdAt: _c, updatedAt: _u, ...fields } = got;
    const saved = await api.patch(`/api/v1/agents/${id}`, { data: fields });
    expect(saved.status(), await saved.text()).toBe(200);
  }
  await otherApi.dispose();
});

test('a server no agent uses says so in its removal dialog', async ({ page, api }) => {
  const created = await api.post('/api/v1/mcp/servers', { data: { transport: 'http', name: 'unused-tools', url: 'https://mcp.example.test/mcp' } });
  expect(created.status(), await created.text()).toBe(201);
  await page.goto('/settings');
  const item = page.getByRole('list', { name: 'Your MCP servers' }).getByRole('listitem').filter({ hasText: 'unused-tools' }).first();
  await item.getByRole('button', { name: 'Remove unused-tools' }).click(PAGE_DATA);
  const dialog = page.getByRole('dialog', { name: 'Remove unused-tools?' });
  await expect(dialog.getByText('No agent uses it.')).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(item).toBeVisible();
});

test("an admin's removal dialog names the admin's agents and counts other accounts' agents without naming them", async ({ browser, api, accounts }) => {
  const admin = await accounts.create('admin', { admin: true });
  const adminApi = await accounts.apiFor(admin);
  const name = `shared-${Date.now().toString(36)}`;
  const created = await adminApi.post('/api/v1/admin/mcp/servers', { data: { transport: 'http', name, url: 'https://mcp.example.test/mcp' } });
  expect(created.status(), await created.text()).toBe(201);
  const serverId = ((await created.json()) as { id: string }).id;
  expect((await adminApi.post('/api/v1/agents', { data: { name: 'Ops helper', mcpTools: [{ serverId, tools: 'all' }] } })).status()).toBe(201);
  // The test's own account, a member, uses the deployment's server too.
  const members = await api.post('/api/v1/agents', { data: { name: 'Member diary', mcpTools: [{ serverId, tools: 'all' }] } });
  expect(members.status(), await members.text()).toBe(201);

  const context = await browser.newContext({ storageState: admin.storageState });
  const page = await context.newPage();
  await page.goto('/admin');
  const section = page.getByRole('region', { name: 'MCP servers', exact: true });
  await section.getByRole('button', { name: `Remove ${name}` }).click(PAGE_DATA);
  const dialog = page.getByRole('dialog', { name: `Remove ${name}?` });
  await expect(dialog.getByText(/^Used by 2 agents \(1 of other accounts\)\./)).toBeVisible();
  await expect(dialog.getByRole('list', { name: 'Agents that use it' }).getByRole('listitem')).toHaveText(['Ops helper']);
  await expect(dialog).not.toContainText('Member diary');
  await dialog.getByRole('button', { name: 'Remove server' }).click();
  await expect(dialog).toBeHidden();
  await expect(section.getByRole('button', { name: `Remove ${name}` })).toHaveCount(0, PAGE_DATA);

  const member = (await (await api.get(`/api/v1/agents/${((await members.json()) as { id: string }).id}`)).json()) as { mcpTools: unknown[] };
  expect(member.mcpTools).toEqual([]);
  await context.close();
  await adminApi.dispose();
});
