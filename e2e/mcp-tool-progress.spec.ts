import { mcpToolName } from '../lib/mcp/tool-name';
import { expect, test } from './fixtures';
import { progressLines, startMcpStub } from './support/mcp-stub';
import { FIRST_LOAD, RESULT_TIMEOUT } from './support/team-flows';

/**
 * An MCP tool that reports progress while it runs (ADR 031, 055): the conversation's live output box shows its
 * progress lines headed by the tool and its server, not "Writing…", until the model writes again. The stub answers
 * only when the test releases it, so the box is seen while the call is in flight.
 */
test.describe.configure({ timeout: 60_000 });

test("a tool's progress shows in the live output as that tool's, named with its server, not as the model writing", async ({ page, api }) => {
  const stub = await startMcpStub({ progress: true });
  try {
    const created = await api.post('/api/v1/mcp/servers', { data: { transport: 'http', name: 'crawler', url: stub.url } });
    expect(created.status(), await created.text()).toBe(201);
    const serverId = ((await created.json()) as { id: string }).id;
    const agent = await api.post('/api/v1/agents', { data: { name: 'Surveyor', toolGroups: ['utility'], mcpTools: [{ serverId, tools: ['crawl'] }] } });
    expect(agent.status(), await agent.text()).toBe(201);
    const conversation = await api.post('/api/v1/conversations', { data: { agentId: ((await agent.json()) as { id: string }).id } });
    expect(conversation.status(), await conversation.text()).toBe(201);

    await page.goto(`/conversations/${((await conversation.json()) as { id: string }).id}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Surveyor' })).toBeVisible(FIRST_LOAD);
    const crawl = mcpToolName(serverId, 'crawl');
    await page.getByRole('combobox', { name: 'Message', exact: true }).fill(`Crawl it\n/call ${crawl} {}`);
    await page.getByRole('button', { name: 'Send', exact: true }).click();

    const live = page.getByRole('group', { name: 'Live output from Surveyor' });
    await expect(live).toContainText(`crawler/crawl: 2/3 ${progressLines[1]}`, { timeout: RESULT_TIMEOUT });
    await expect(page.getByText('Running crawl of MCP server crawler…', { exact: true })).toBeVisible();
    await expect(page.getByText('Writing…', { exact: true })).toHaveCount(0);

    stub.release();
    // The scripted model answers with the result ("[name] result"): the model wrote again, the progress heading is gone.
    await expect(page.getByRole('log', { name: 'Conversation history' }).getByText(`[${crawl}] crawl done`)).toBeVisible({ timeout: RESULT_TIMEOUT });
    await expect(page.getByText('Running crawl of MCP server crawler…', { exact: true })).toHaveCount(0);
  } finally {
    stub.release();
    await stub.close();
  }
});
