import crypto from 'node:crypto';
import { mcpToolName } from '../lib/mcp/tool-name';
import { expect, test } from './fixtures';
import { startMcpStub } from './support/mcp-stub';
import { FIRST_LOAD, RESULT_TIMEOUT } from './support/team-flows';

test.describe.configure({ timeout: 60_000 });

test('an agent is given two tools of an MCP server in the form, and a scripted run calls one of them through approval; Steps name the server', async ({
  page,
  api,
  accounts,
}) => {
  const stub = await startMcpStub();
  try {
    // Setup through the API: an admin adds the stub as a deployment-wide server (loopback is the admin's to allow).
    const admin = await accounts.create('mcp-admin', { admin: true });
    const adminApi = await accounts.apiFor(admin);
    const added = await adminApi.post('/api/v1/admin/mcp/servers', { data: { name: 'stub-tools', transport: 'http', url: stub.url } });
    expect(added.status(), await added.text()).toBe(201);
    const serverId = ((await added.json()) as { id: string }).id;

    // The form: the server, only two of its tools, one of them needing approval.
    await page.goto('/agents/new');
    await page.getByRole('textbox', { name: 'Name' }).fill('Loud helper');
    const servers = page.getByRole('group', { name: 'MCP servers' });
    const server = servers.getByRole('listitem').filter({ hasText: 'stub-tools' });
    await server.getByRole('checkbox', { name: 'stub-tools' }).check();
    await server.getByRole('radio', { name: 'Only the tools checked below' }).check();
    const tools = server.getByRole('list', { name: 'Tools of stub-tools' });
    await expect(tools.getByRole('checkbox', { name: 'erase', exact: true })).toBeChecked({ timeout: RESULT_TIMEOUT });
    // From the keyboard: focus the tool's checkbox and toggle it with the space bar.
    await tools.getByRole('checkbox', { name: 'erase', exact: true }).focus();
    await page.keyboard.press('Space');
    await expect(tools.getByRole('checkbox', { name: 'erase', exact: true })).not.toBeChecked();
    await expect(tools.getByRole('checkbox', { name: 'Needs approval: erase' })).toHaveCount(0);
    await tools.getByRole('checkbox', { name: 'Needs approval: shout' }).check();
    await page.getByRole('button', { name: 'Create agent' }).click();
    await expect(page).toHaveURL(/\/agents$/);

    const listed = (await (await api.get('/api/v1/agents?query=Loud')).json()) as { agents: Array<{ id: string; mcpTools: unknown; approvalTools: string[] }> };
    const agent = listed.agents[0]!;
    const shout = mcpToolName(serverId, 'shout');
    expect(agent.mcpTools).toEqual([{ serverId, tools: ['lookup', 'shout'] }]);
    expect(agent.approvalTools).toEqual([shout]);

    // A scripted run calls shout: it waits for approval, names the server, and the server hears nothing until then.
    const conversation = await api.post('/api/v1/conversations', { data: { agentId: agent.id } });
    expect(conversation.status(), await conversation.text()).toBe(201);
    const conversationId = ((await conversation.json()) as { id: string }).id;
    await page.goto(`/conversations/${conversationId}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Loud helper' })).toBeVisible(FIRST_LOAD);
    await page.getByRole('combobox', { name: 'Message', exact: true }).fill(`Please shout\n/call ${shout} {"text":"hello"}`);
    await page.getByRole('button', { name: 'Send', exact: true }).click();

    const prompt = page.getByRole('region', { name: 'Approval needed: shout of MCP server stub-tools' });
    await expect(prompt).toBeVisible({ timeout: RESULT_TIMEOUT });
    await expect(prompt).toContainText('"text": "hello"');
    expect(stub.calls).toEqual([]);
    await prompt.getByRole('button', { name: /^Approve shout/ }).click();

    const history = page.getByRole('log', { name: 'Conversation history' });
    await expect(history.getByText(`[${shout}] HELLO!`)).toBeVisible({ timeout: RESULT_TIMEOUT });
    expect(stub.calls).toEqual([{ name: 'shout', args: { text: 'hello' } }]);

    // Steps show the call by the tool's own name and its server's (the call ran in the run after the approval).
    await page.getByRole('button', { name: 'Steps after your answer' }).click();
    await expect(page.getByText('Tool shout of MCP server stub-tools returned', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });

    // The abuse case: a server id the account can't use (another account's answers the same) is refused at its field.
    const forged = await api.post('/api/v1/agents', { data: { name: 'Forged', mcpTools: [{ serverId: crypto.randomUUID(), tools: 'all' }] } });
    expect(forged.status()).toBe(422);
    expect(((await forged.json()) as { error: { fields?: Record<string, string> } }).error.fields).toHaveProperty('mcpTools');
  } finally {
    await stub.close();
  }
});
