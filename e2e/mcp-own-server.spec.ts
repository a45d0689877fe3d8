import { expect, measureHorizontalOverflow, test } from './fixtures';
import { startMcpStub } from './support/mcp-stub';
import { luminanceOf, PAGE_DATA } from './support/seed';
import { FIRST_LOAD, RESULT_TIMEOUT } from './support/team-flows';
import { mcpToolName } from '../lib/mcp/tool-name';

/**
 * An account's own MCP server (issue 28, ADR 054, 057), not the admin's: a person adds a Streamable HTTP stub on
 * loopback in Settings (the e2e server allows 127.0.0.1 by EGRESS_ALLOW: e2e/env.ts), sees its status and tools,
 * gives an agent two of its tools with "Ask before every tool of this server", and a scripted run's call of a tool
 * that has no rule of its own waits for approval. What must not happen: the call reaching the server before the
 * person approved it; the chat or Steps naming the call by its generated name; another account seeing the server.
 */
test.describe.configure({ timeout: 90_000 });

test("a person's own server: tools and status in Settings, an agent with two of its tools and the server's approval rule, a run calls one through approval", async ({
  page,
  api,
  accounts,
}) => {
  const stub = await startMcpStub();
  try {
    await page.goto('/settings');
    const section = page.getByRole('region', { name: 'MCP servers', exact: true });
    const form = section.getByRole('form', { name: 'Add an MCP server' });
    await form.getByLabel('Name').fill('own-tools');
    await form.getByLabel('URL').fill(stub.url);
    await form.getByRole('button', { name: 'Add MCP server' }).click();
    await expect(form.getByRole('status')).toHaveText('Added own-tools.');
    const item = section.getByRole('list', { name: 'Your MCP servers' }).getByRole('listitem').filter({ hasText: 'own-tools' }).first();
    await item.getByRole('button', { name: 'Tools of own-tools' }).click();
    await expect(item.getByRole('status')).toContainText('Connected', { timeout: RESULT_TIMEOUT });
    await expect(item.getByText('3 tools')).toBeVisible();
    const panelTools = item.getByRole('list', { name: 'Tools of own-tools' });
    for (const name of ['lookup', 'shout', 'erase']) await expect(panelTools.getByText(name, { exact: true })).toBeVisible();

    const servers = (await (await api.get('/api/v1/mcp/servers')).json()) as { servers: Array<{ id: string; name: string }> };
    const serverId = servers.servers.find((s) => s.name === 'own-tools')!.id;
    // The status is the shared record (ADR 057): the API answers what the page showed.
    const status = (await (await api.get(`/api/v1/mcp/servers/${serverId}/tools`)).json()) as { status: string; listedAt: string | null; tools: Array<{ name: string }> };
    expect(status).toMatchObject({ status: 'connected', listedAt: expect.any(String) });
    expect(status.tools.map((t) => t.name)).toEqual(['lookup', 'shout', 'erase']);

    // The form: the server, two of its tools, and every tool of it asks first.
    await page.goto('/agents/new');
    await page.getByRole('textbox', { name: 'Name' }).fill('Own helper');
    // One built-in group: with every group the run offers more than 20 tools and its MCP tools are deferred behind
    // tool_search (ADR 055), which is not what this test is about.
    await page.getByRole('group', { name: 'Tool groups' }).getByRole('checkbox', { name: /^Utility/ }).check();
    const server = page.getByRole('group', { name: 'MCP servers' }).getByRole('listitem').filter({ hasText: 'own-tools' });
    await server.getByRole('checkbox', { name: 'own-tools' }).check();
    await server.getByRole('radio', { name: 'Only the tools checked below' }).check();
    const tools = server.getByRole('list', { name: 'Tools of own-tools' });
    await tools.getByRole('checkbox', { name: 'erase', exact: true }).uncheck({ timeout: RESULT_TIMEOUT });
    await tools.getByRole('checkbox', { name: 'Needs approval: shout' }).check();
    await server.getByRole('checkbox', { name: 'Ask before every tool of this server' }).check();
    // The server's rule covers each tool: the single rules are gone, and so are their boxes.
    await expect(tools.getByRole('checkbox', { name: /^Needs approval/ })).toHaveCount(0);
    await page.getByRole('button', { name: 'Create agent' }).click();
    await expect(page).toHaveURL(/\/agents$/);
    // The agent's summary in the list says what it asks before (this account has this one agent).
    await expect(page.getByText('every tool of own-tools', { exact: true })).toBeVisible(PAGE_DATA);

    const agent = ((await (await api.get('/api/v1/agents?query=Own')).json()) as { agents: Array<{ id: string; mcpTools: unknown; approvalTools: string[] }> }).agents[0]!;
    expect(agent.mcpTools).toEqual([{ serverId, tools: ['lookup', 'shout'] }]);
    expect(agent.approvalTools).toEqual([`mcp_server:${serverId}`]);

    // A scripted run calls lookup, which has no rule of its own: the server's rule holds it.
    const lookup = mcpToolName(serverId, 'lookup');
    const conversation = await api.post('/api/v1/conversations', { data: { agentId: agent.id } });
    expect(conversation.status(), await conversation.text()).toBe(201);
    await page.goto(`/conversations/${((await conversation.json()) as { id: string }).id}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Own helper' })).toBeVisible(FIRST_LOAD);
    await page.getByRole('combobox', { name: 'Message', exact: true }).fill(`Look it up\n/call ${lookup} {"word":"hi"}`);
    await page.getByRole('button', { name: 'Send', exact: true }).click();

    const prompt = page.getByRole('region', { name: 'Approval needed: lookup of MCP server own-tools' });
    await expect(prompt).toBeVisible({ timeout: RESULT_TIMEOUT });
    const history = page.getByRole('log', { name: 'Conversation history' });
    // The chat names the waiting call as the prompt does, never by its generated name.
    const calls = history.getByRole('list', { name: 'Tool calls' });
    await expect(calls.getByText('lookup of MCP server own-tools', { exact: true })).toBeVisible();
    await expect(calls).not.toContainText(lookup);
    expect(stub.calls).toEqual([]);
    await prompt.getByRole('button', { name: /^Approve lookup/ }).click();
    await expect(history.getByText(`[${lookup}] lookup done`)).toBeVisible({ timeout: RESULT_TIMEOUT });
    expect(stub.calls).toEqual([{ name: 'lookup', args: { word: 'hi' } }]);

    // Steps of the turn: "Assistant called lookup of MCP server own-tools".
    await history.getByRole('button', { name: 'Steps', exact: true }).first().click();
    await expect(page.getByText('Assistant called lookup of MCP server own-tools', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
    await expect(page.getByText(`Assistant called ${lookup}`)).toHaveCount(0);

    // Another account: can't see the server, read its tools, or name it in an agent's approval rule.
    const other = await accounts.create('other');
    const otherApi = await accounts.apiFor(other);
    expect(await (await otherApi.get('/api/v1/mcp/servers')).text()).not.toContain(serverId);
    expect((await otherApi.get(`/api/v1/mcp/servers/${serverId}/tools`)).status()).toBe(404);
    const forged = await otherApi.post('/api/v1/agents', { data: { name: 'Forged', approvalTools: [`mcp_server:${serverId}`] } });
    expect(forged.status()).toBe(422);
    expect(((await forged.json()) as { error: { fields?: Record<string, string> } }).error.fields).toHaveProperty('approvalTools');
    await otherApi.dispose();
  } finally {
    await stub.close();
  }
});

test('Settings with an own MCP server on a 390 px phone in dark mode: dark colours, nothing sticks out sideways', async ({ page, api }) => {
  const stub = await startMcpStub();
  try {
    const created = await api.post('/api/v1/mcp/servers', { data: { transport: 'http', name: 'own-phone-tools-with-a-long-name', url: stub.url } });
    expect(created.status(), await created.text()).toBe(201);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/settings');
    await page.getByRole('radiogroup', { name: 'Theme' }).getByRole('radio', { name: 'Dark' }).click();
    await expect(page.locator('html')).toHaveClass(/(^|\s)dark(\s|$)/);
    const item = page.getByRole('list', { name: 'Your MCP servers' }).getByRole('listitem').filter({ hasText: 'own-phone-tools-with-a-long-name' }).first();
    await item.getByRole('button', { name: 'Tools of own-phone-tools-with-a-long-name' }).click(PAGE_DATA);
    await expect(item.getByRole('status')).toContainText('Connected', { timeout: RESULT_TIMEOUT });
    expect(await luminanceOf(page.locator('body'), 'background-color')).toBeLessThan(0.05);
    const phone = await measureHorizontalOverflow(page);
    expect(phone.px, `sticks out: ${phone.offenders.join(', ')}`).toBeLessThanOrEqual(0);
  } finally {
    await stub.close();
  }
});
