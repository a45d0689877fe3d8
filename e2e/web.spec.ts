import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Locator, Page } from '@playwright/test';
import { SEARCH_STUB_PORT } from './env';
import { expect, test } from './fixtures';
import { FIRST_LOAD, RESULT_TIMEOUT } from './support/team-flows';

/**
 * The web tool group in the built app (issue 29, ADR 060). A person gives an agent the Web group in the agent form;
 * a scripted turn calls web_fetch on a page of a stub on 127.0.0.1 (the e2e server allows that one address by
 * EGRESS_ALLOW: e2e/env.ts), web_fetch on a link of the same stub that redirects to 127.0.0.2 (loopback, not
 * allowed), and web_search against the server's SearXNG stub. The chat and the turn's Steps show the page's readable
 * text (the article, not its navigation or footer) and the search's results; the redirect is a tool error naming
 * the refused address. What must not happen: the refused address seeing any request; the page's navigation, footer
 * or script reaching the model; the search query not reaching the configured provider.
 */
test.describe.configure({ timeout: 60_000 });

const ARTICLE = `<!doctype html><html><head><title>Tide pools of the north shore</title><script>document.title = 'hijacked'</script></head>
<body><nav><a href="/">Home</a> <a href="/about">About us and our sponsors</a></nav>
<article><h1>Tide pools of the north shore</h1>
<p>At low tide the rocks hold small pools where anemones, crabs and sea stars wait for the sea to come back. Each pool is a world of its own for six hours.</p>
<h2>Where the sea leaves water</h2>
<p>The best pools are on the flat shelf below the lighthouse, reached by the stairs at the end of the lane. Go an hour before low tide and keep off the weed.</p>
</article><footer>Copyright footer of the stub site</footer></body></html>`;

type Stub = { base: string; requests: string[]; close(): Promise<void> };

async function listen(host: string, port: number, handler: http.RequestListener): Promise<Stub> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    base: `http://${host}:${bound}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const history = (page: Page) => page.getByRole('log', { name: 'Conversation history' });
/** One step of the turn's Steps list, by its title. */
const step = (list: Locator, title: string) => list.getByRole('listitem').filter({ has: list.page().getByText(title, { exact: true }) });

test('an agent with the Web group reads a page, is refused a redirect to a private address, and searches through the configured provider', async ({ page, api }) => {
  // The address the redirect points at: loopback, but not the one address the server allows.
  const trap = await listen('127.0.0.2', 0, (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('secret'));
  const site = await listen('127.0.0.1', 0, (req, res) => {
    if (req.url === '/article') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
    else if (req.url === '/moved') res.writeHead(302, { location: `${trap.base}/secret` }).end();
    else res.writeHead(404).end();
  });
  const searches: string[] = [];
  const search = await listen('127.0.0.1', SEARCH_STUB_PORT, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    searches.push(`${url.pathname} ${url.searchParams.get('q')} ${url.searchParams.get('format')}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ results: [{ title: 'Rock pooling guide', url: 'https://coast.example/pools', content: 'Where to look at low tide.' }] }),
    );
  });
  try {
    // The agent form offers the group, and the agent gets it only by choosing it.
    await page.goto('/agents/new');
    await page.getByRole('textbox', { name: 'Name' }).fill('Reader');
    await page.getByRole('group', { name: 'Tool groups' }).getByRole('checkbox', { name: /^Web/ }).check();
    await page.getByRole('button', { name: 'Create agent' }).click();
    await expect(page).toHaveURL(/\/agents$/);
    const agent = ((await (await api.get('/api/v1/agents?query=Reader')).json()) as { agents: Array<{ id: string; toolGroups: string[] }> }).agents[0]!;
    expect(agent.toolGroups).toEqual(['web']);

    const created = await api.post('/api/v1/conversations', { data: { agentId: agent.id } });
    expect(created.status(), await created.text()).toBe(201);
    await page.goto(`/conversations/${((await created.json()) as { id: string }).id}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Reader' })).toBeVisible(FIRST_LOAD);
    const message = [
      'Read up on tide pools',
      `/call web_fetch {"url":"${site.base}/article"}`,
      `/call web_fetch {"url":"${site.base}/moved"}`,
      '/call web_search {"query":"tide pools"}',
    ].join('\n');
    await page.getByRole('combobox', { name: 'Message', exact: true }).fill(message);
    await page.getByRole('button', { name: 'Send', exact: true }).click();

    // The chat: the scripted answer quotes each tool's result — the page's title, the refusal, the search result.
    const chat = history(page);
    await expect(chat.getByText('[web_fetch] Title: Tide pools of the north shore', { exact: false })).toBeVisible({ timeout: RESULT_TIMEOUT });
    await expect(chat.getByText('[web_fetch] Refused: 127.0.0.2 is a loopback address', { exact: false })).toBeVisible();
    await expect(chat.getByText('[web_search] 1. Rock pooling guide', { exact: false })).toBeVisible();

    // The turn's Steps: each call with its origin, the page as readable Markdown, the refusal as a failed call.
    const steps = history(page).getByRole('button', { name: 'Steps', exact: true }).first();
    await steps.click();
    const list = page.getByRole('list', { name: 'Run steps' });
    await expect(list.getByText('Run completed', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
    const host = new URL(site.base).host;
    const fetched = step(list, `Tool web_fetch (web:${host}) returned`).locator('pre');
    await expect(fetched).toContainText('Title: Tide pools of the north shore');
    await expect(fetched).toContainText(`URL: ${site.base}/article`);
    await expect(fetched).toContainText('At low tide the rocks hold small pools where anemones, crabs and sea stars wait');
    await expect(fetched).toContainText('## Where the sea leaves water');
    await expect(fetched).toContainText('The best pools are on the flat shelf below the lighthouse');
    await expect(fetched).not.toContainText('sponsors');
    await expect(fetched).not.toContainText('Copyright footer');
    await expect(fetched).not.toContainText('hijacked');

    const refused = step(list, `Tool web_fetch (web:${host}) failed`).locator('pre');
    await expect(refused).toHaveText('Refused: 127.0.0.2 is a loopback address, not a public one (web fetch reaches public addresses only).');
    expect(trap.requests).toEqual([]);
    expect(site.requests).toEqual(['/article', '/moved']);

    const searched = step(list, 'Tool web_search (web-search:searxng) returned').locator('pre');
    await expect(searched).toContainText('1. Rock pooling guide');
    await expect(searched).toContainText('https://coast.example/pools');
    await expect(searched).toContainText('Where to look at low tide.');
    expect(searches).toEqual(['/search tide pools json']);
  } finally {
    await Promise.all([site.close(), trap.close(), search.close()]);
  }
});
