import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { createTeam } from './support/team-flows';

/**
 * Headers and the nonce CSP in a real browser (docs/decisions/010). What must not happen: a page that serves a
 * script-src with 'unsafe-inline' or without a nonce, or any script/style the CSP blocks on the main pages (a
 * blocked script would break the app silently), or a cookie-authenticated API write without an Origin succeeding.
 */
const APP_PAGES = ['/agents', '/agents/new', '/conversations', '/teams', '/teams/new', '/settings'] as const;

/** Records every CSP violation the page reports (DOM event and console), from before the first script runs. */
async function watchViolations(page: Page): Promise<string[]> {
  const violations: string[] = [];
  await page.exposeFunction('__reportCspViolation', (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __reportCspViolation(text: string): void }).__reportCspViolation(
        `${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`,
      );
    });
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text())) violations.push(msg.text());
  });
  return violations;
}

function scriptSrc(csp: string): string {
  return csp.split(';').map((d) => d.trim()).find((d) => d.startsWith('script-src')) ?? '';
}

test('every main page has a nonce CSP without unsafe-inline scripts, and nothing is blocked', async ({ context }) => {
  // Six first loads, each to hydration: ~5 s apiece on a saturated two-core CI machine, past the 30 s default.
  test.setTimeout(60_000);
  const nonces = new Set<string>();
  // A fresh tab per page, so one page's own client navigation can't interrupt loading the next.
  for (const path of APP_PAGES) {
    const page = await context.newPage();
    const violations = await watchViolations(page);
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(200);
    const headers = response!.headers();
    const csp = headers['content-security-policy'] ?? '';
    const scripts = scriptSrc(csp);
    const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(scripts)?.[1];
    expect(nonce, `${path} script-src has a nonce`).toBeTruthy();
    nonces.add(nonce!);
    expect(scripts).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    // The page hydrated (a client component responds), so Next's own scripts ran under the CSP.
    await expect(page.getByRole('radiogroup', { name: 'Theme' }).getByRole('radio', { name: 'System' })).toBeChecked();
    expect(violations, path).toEqual([]);
    await page.close();
  }
  expect(nonces.size, 'a fresh nonce per response').toBe(APP_PAGES.length);
});

test('the dark theme applies before paint under the CSP (next-themes script carries the nonce)', async ({ page }) => {
  const violations = await watchViolations(page);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/agents');
  await expect(page.locator('html')).toHaveClass(/(^|\s)dark(\s|$)/);
  expect(violations).toEqual([]);
});

test.describe('signed out', () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  test('the sign-in page has the same headers and no violations', async ({ page }) => {
    const violations = await watchViolations(page);
    const response = await page.goto('/sign-in');
    const csp = response!.headers()['content-security-policy'] ?? '';
    expect(scriptSrc(csp)).toMatch(/'nonce-[A-Za-z0-9+/=]+'/);
    expect(scriptSrc(csp)).not.toContain('unsafe-inline');
    await expect(page.getByLabel('Email')).toBeVisible();
    expect(violations).toEqual([]);
  });
});

test('API responses forbid framing and sniffing and allow nothing to run', async ({ api }) => {
  const res = await api.get('/api/v1/me');
  expect(res.status()).toBe(200);
  const headers = res.headers();
  expect(headers['content-security-policy']).toBe("sandbox; default-src 'none'; frame-ancestors 'none'");
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
});

/**
 * What must not happen: a stored HTML or SVG file opened from its download link runs in the app's origin. The built
 * server's config headers replace a route's own CSP, so this is checked through `next start`, not in the route's test.
 */
test('a file’s content arrives sandboxed, as an attachment, never sniffed', async ({ api }) => {
  const team = await createTeam(api, 'Downloads', [{ name: 'Writer' }, { name: 'Reader' }]);
  const html = '<!doctype html><script>parent.stolen = document.cookie</script><svg onload="alert(1)"></svg>';
  const up = await api.post(`/api/v1/teams/${team.id}/files?name=page.html`, { data: Buffer.from(html), headers: { 'content-type': 'text/html' } });
  expect(up.status(), await up.text()).toBe(201);
  const { file } = (await up.json()) as { file: { id: string } };
  for (const query of ['', '?inline=1']) {
    const res = await api.get(`/api/v1/files/${file.id}/content${query}`);
    expect(res.status()).toBe(200);
    const headers = res.headers();
    expect(headers['content-security-policy']?.split(';')[0]).toBe('sandbox');
    expect(headers['content-security-policy']).toContain("default-src 'none'");
    expect(headers['content-disposition']).toMatch(/^attachment;/);
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['content-type']).not.toMatch(/html|svg/);
  }
});

test("a cookie-authenticated write without the app's Origin is refused, and the app's own page can write", async ({
  page,
}) => {
  // page.request carries the session cookie but no Origin: what a non-browser client or an old browser sends.
  const refused = await page.request.post('/api/v1/agents', { data: { name: 'Not created' } });
  expect(refused.status()).toBe(403);
  expect((await refused.json()).error.code).toBe('cross_site');
  const foreign = await page.request.post('/api/v1/agents', {
    data: { name: 'Not created' },
    headers: { origin: 'https://evil.example' },
  });
  expect(foreign.status()).toBe(403);

  // The same write from the app's own page (fetch sends Origin) succeeds.
  await page.goto('/agents');
  const status = await page.evaluate(async () => {
    const res = await fetch('/api/v1/agents', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Created from the page' }),
    });
    return res.status;
  });
  expect(status).toBe(201);
  const list = await page.request.get('/api/v1/agents');
  const names = ((await list.json()) as { agents: Array<{ name: string }> }).agents.map((a) => a.name);
  expect(names).toEqual(['Created from the page']);
});
