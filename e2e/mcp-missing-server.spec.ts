import { mcpToolName } from '../lib/mcp/tool-name';
import { expect, test } from './fixtures';
import { startMcpStub } from './support/mcp-stub';
import { FIRST_LOAD, RESULT_TIMEOUT } from './support/team-flows';

/**
 * A run can still name an MCP server that no longer exists: the answer to an approval resumes the run with the setup
 * recorded when it started, and the server was deleted meanwhile (older agents too named deleted servers until the
 * data migration took them out). Its tools are not offered; the Steps of that run say so, by the server's id, instead
 * of the tools silently missing (ADR 055).
 */
test.describe.configure({ timeout: 60_000 });

test('a server deleted while a run waits for approval: the resumed run goes on without its tools, and its Steps say so', async ({ page, api }) => {
  const stub = await startMcpStub();
  try {
    const created = await api.post('/api/v1/mcp/servers', { data: { transport: 'http', name: 'shouter', url: stub.url } });
    expect(created.status(), await created.text()).toBe(201);
    const serverId = ((await created.json()) as { id: string }).id;
    const shout = mcpToolName(serverId, 'shout');
    const agent = await api.post('/api/v1/agents', { data: { name: 'Herald', toolGroups: ['utility'], mcpTools: [{ serverId, tools: ['shout'] }], approvalTools: [shout] } });
    expect(agent.status(), await agent.text()).toBe(201);
    const conversation = await api.post('/api/v1/conversations', { data: { agentId: ((await agent.json()) as { id: string }).id } });
    expect(conversation.status(), await conversation.text()).toBe(201);

    await page.goto(`/conversations/${((await conversation.json()) as { id: string }).id}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Herald' })).toBeVisible(FIRST_LOAD);
    await page.getByRole('combobox', { name: 'Message', exact: true }).fill(`Shout it\n/call ${shout} {"text":"hi"}\n/reply carried on`);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const prompt = page.getByRole('region', { name: 'Approval needed: shout of MCP server shouter' });
    await expect(prompt).toBeVisible({ timeout: RESULT_TIMEOUT });

    const deleted = await api.delete(`/api/v1/mcp/servers/${serverId}`);
    expect(deleted.status(), await deleted.text()).toBe(204);
    await prompt.getByRole('button', { name: /^Approve shout/ }).click();

    const history = page.getByRole('log', { name: 'Conversation history' });
    await expect(history.getByText('carried on', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
    expect(stub.calls).toEqual([]);

    await page.getByRole('button', { name: 'Steps after your answer' }).click();
    const note = page.getByRole('list', { name: 'Run steps' }).getByRole('listitem').filter({ hasText: `MCP server “${serverId}” no longer exists or is not yours to use; its tools were not offered` });
    await expect(note).toBeVisible({ timeout: RESULT_TIMEOUT });
    await expect(note).toContainText('edit the agent to take it out of its MCP tools');
  } finally {
    await stub.close();
  }
});
