import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, measureHorizontalOverflow, test } from './fixtures';
import { rootScrollsSideways } from './support/seed';
import { FIRST_LOAD, RESULT_TIMEOUT } from './support/team-flows';

/**
 * Skills (issue 29, ADR 061) as a person uses them: write a skill on the Skills page, attach it to an agent in the
 * agent form, and a scripted run reads it with read_skill — its step names the skill and its version. On desktop in
 * light mode and on a 390 px phone in dark mode. What must not happen: another account seeing or changing the skill.
 */
test.describe.configure({ timeout: 90_000 });

const LAYOUTS = [
  { name: 'desktop, light', viewport: { width: 1280, height: 900 }, scheme: 'light' as const },
  { name: '390 px, dark', viewport: { width: 390, height: 844 }, scheme: 'dark' as const },
];

async function violations(page: Page, within: string): Promise<string[]> {
  const results = await new AxeBuilder({ page }).include(within).analyze();
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} — ${v.nodes[0]?.target.join(' ')}`);
}

for (const layout of LAYOUTS) {
  test(`write a skill, attach it to an agent, a scripted run reads it and the step shows it (${layout.name})`, async ({ page, api, accounts }) => {
    await page.setViewportSize(layout.viewport);
    await page.emulateMedia({ colorScheme: layout.scheme });
    const name = `triage-${layout.viewport.width}`;

    await page.goto('/skills');
    await expect(page.getByRole('heading', { level: 1, name: 'Skills' })).toBeVisible(FIRST_LOAD);
    await expect(page.getByText('No skills yet')).toBeVisible();
    const form = page.getByRole('form', { name: 'Write a skill' });
    await form.getByRole('textbox', { name: 'Name' }).fill(name);
    await form.getByRole('textbox', { name: 'Description' }).fill('Sort incoming bugs by severity 🐛');
    await form.getByRole('textbox', { name: 'Instructions' }).fill('# Triage\nLabel P1 when data is lost.');
    await form.getByRole('button', { name: 'Add skill' }).click();
    const list = page.getByRole('list', { name: 'Skills' });
    await expect(list.getByRole('heading', { name })).toBeVisible({ timeout: RESULT_TIMEOUT });
    await expect(page.getByRole('status').filter({ hasText: `Added ${name}` })).toBeVisible();

    if (layout.viewport.width === 390) {
      const root = await rootScrollsSideways(page);
      expect(root.scrollWidth).toBeLessThanOrEqual(root.clientWidth);
      const overflow = await measureHorizontalOverflow(page);
      expect(overflow.px, `sticks out: ${overflow.offenders.join(', ')}`).toBeLessThanOrEqual(0);
    }
    expect(await violations(page, 'main')).toEqual([]);

    // Attach it in the agent form.
    await page.goto('/agents/new');
    await page.getByRole('textbox', { name: 'Name' }).fill(`Triager ${layout.viewport.width}`);
    const skills = page.getByRole('group', { name: 'Skills' }).last();
    await skills.getByRole('checkbox', { name }).check({ timeout: RESULT_TIMEOUT });
    await page.getByRole('button', { name: 'Create agent' }).click();
    await expect(page).toHaveURL(/\/agents$/);

    const listed = (await (await api.get(`/api/v1/agents?query=${encodeURIComponent(`Triager ${layout.viewport.width}`)}`)).json()) as { agents: Array<{ id: string; skills: string[] }> };
    const agent = listed.agents[0]!;
    const mine = (await (await api.get('/api/v1/skills')).json()) as Array<{ id: string; name: string; hash: string }>;
    const skill = mine.find((s) => s.name === name)!;
    expect(agent.skills).toEqual([skill.id]);

    // A scripted run reads it; the Steps show which skill and which version.
    const conversation = await api.post('/api/v1/conversations', { data: { agentId: agent.id } });
    expect(conversation.status(), await conversation.text()).toBe(201);
    const conversationId = ((await conversation.json()) as { id: string }).id;
    await page.goto(`/conversations/${conversationId}`);
    await page.getByRole('combobox', { name: 'Message', exact: true }).fill(`/call read_skill {"skill":"${name}"}\n/reply triaged`);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const history = page.getByRole('log', { name: 'Conversation history' });
    await expect(history.getByText('triaged', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
    await history.getByRole('button', { name: 'Steps', exact: true }).last().click();
    const steps = page.getByRole('list', { name: 'Run steps' }).last();
    await expect(steps.getByText(`Tool read_skill (skill:${name}) returned`)).toBeVisible({ timeout: RESULT_TIMEOUT });
    await expect(steps.getByText(`Skill ${name}, SKILL.md, version ${skill.hash.slice(0, 12)}`, { exact: false })).toBeVisible();

    // Another account: 404 on the skill, its file, an edit and a delete; its list doesn't show it.
    const other = await accounts.create('skills-other');
    const otherApi = await accounts.apiFor(other);
    expect((await otherApi.get(`/api/v1/skills/${skill.id}`)).status()).toBe(404);
    expect((await otherApi.get(`/api/v1/skills/${skill.id}/files/SKILL.md`)).status()).toBe(404);
    expect((await otherApi.patch(`/api/v1/skills/${skill.id}`, { data: { body: 'hijacked' } })).status()).toBe(404);
    expect((await otherApi.delete(`/api/v1/skills/${skill.id}`)).status()).toBe(404);
    expect(((await (await otherApi.get('/api/v1/skills')).json()) as unknown[]).length).toBe(0);
    const attach = await otherApi.post('/api/v1/agents', { data: { name: 'Borrower', skills: [skill.id] } });
    expect(attach.status()).toBe(422);

    // Deleting it while the agent uses it: the confirm dialog says which agent refuses it.
    await page.goto('/skills');
    await page.getByRole('button', { name: `Delete ${name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Delete ${name}?` });
    await dialog.getByRole('button', { name: 'Delete skill' }).click();
    await expect(dialog.getByRole('alert')).toContainText(`Triager ${layout.viewport.width}`, { timeout: RESULT_TIMEOUT });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(list.getByRole('heading', { name })).toBeVisible();
  });
}
