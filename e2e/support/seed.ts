/**
 * Test data through the HTTP API (the `api` fixture: Bearer token as the test's account), for tests whose subject
 * is not the screen that would otherwise create it. Every call asserts its status so a broken seed fails loudly
 * at the line that caused it.
 */
import { expect, type APIRequestContext, type Locator, type Page } from '@playwright/test';

/**
 * For the first client-rendered data after a navigation (hydration, then a fetch). On a busy 2-core machine
 * hydration alone has taken 6 s, so these waits get 10 s; everything after them keeps the config's 5 s.
 */
export const PAGE_DATA = { timeout: 10_000 } as const;

export type SeededAgent = {
  id: string;
  name: string;
  description: string;
  instructions: string;
  model: string;
  toolGroups: string[];
  approvalTools: string[];
  maxTurns: number;
};

export type SeededRun = { id: string; status: string; error: string | null };

export async function createAgent(
  api: APIRequestContext,
  agent: { name: string } & Partial<Omit<SeededAgent, 'id' | 'name'>>,
): Promise<SeededAgent> {
  const res = await api.post('/api/v1/agents', { data: agent });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as SeededAgent;
}

export async function getAgent(api: APIRequestContext, id: string): Promise<{ status: number; agent: SeededAgent | null }> {
  const res = await api.get(`/api/v1/agents/${encodeURIComponent(id)}`);
  return { status: res.status(), agent: res.ok() ? ((await res.json()) as SeededAgent) : null };
}

export async function createConversation(api: APIRequestContext, agentId: string): Promise<{ id: string }> {
  const res = await api.post('/api/v1/conversations', { data: { agentId } });
  expect(res.status(), await res.text()).toBe(201);
  // POST /api/v1/conversations answers the conversation itself (lib/types/conversation.ts Conversation).
  const { id } = (await res.json()) as { id: string };
  expect(id, 'POST /api/v1/conversations returned no id').toBeTruthy();
  return { id };
}

/** An agent and an empty conversation with it, opened in the page. */
export async function openChat(
  page: Page,
  api: APIRequestContext,
  agent: { name: string } & Partial<Omit<SeededAgent, 'id' | 'name'>>,
): Promise<{ agent: SeededAgent; conversationId: string }> {
  const created = await createAgent(api, agent);
  const { id } = await createConversation(api, created.id);
  await page.goto(`/conversations/${id}`);
  await expect(page.getByRole('heading', { level: 1, name: created.name })).toBeVisible(PAGE_DATA);
  return { agent: created, conversationId: id };
}

export async function conversationDetail(
  api: APIRequestContext,
  id: string,
): Promise<{ messages: Array<{ role: string; text: string }>; run: SeededRun | null }> {
  const res = await api.get(`/api/v1/conversations/${encodeURIComponent(id)}`);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as { messages: Array<{ role: string; text: string }>; run: SeededRun | null };
}

/**
 * Whether the page sticks out sideways, the plain way: the scrolling element is no wider than its viewport.
 * (fixtures.ts's measureHorizontalOverflow also catches elements clipped by `overflow-x: hidden` on html/body.)
 */
export async function rootScrollsSideways(page: Page): Promise<{ scrollWidth: number; clientWidth: number }> {
  return page.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement;
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth };
  });
}

/** Relative luminance (0 black … 1 white) of an element's computed colour, whatever syntax the stylesheet used. */
export async function luminanceOf(locator: Locator, property: 'color' | 'background-color'): Promise<number> {
  return locator.evaluate((el, prop) => {
    // Paint the computed colour onto a 1×1 canvas so any colour syntax (rgb, oklch, color-mix) becomes sRGB bytes.
    const value = getComputedStyle(el).getPropertyValue(prop);
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 1;
    const ctx = canvas.getContext('2d')!;
    ctx.fillStyle = value;
    ctx.fillRect(0, 0, 1, 1);
    const [r, g, b] = Array.from(ctx.getImageData(0, 0, 1, 1).data).map((v) => {
      const c = v / 255;
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  }, property);
}
