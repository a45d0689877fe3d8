/** The app's HTTP API (docs/api.md) as the provider suites use it: an agent, a conversation, messages, runs. */

export type Run = {
  id: string;
  status: string;
  error: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  modelCalls: number;
  unreportedCalls: number;
};
export type Message = { id: string; role: 'user' | 'assistant' | 'tool'; text: string; toolCalls?: Array<{ id: string; name: string; args: Record<string, unknown> }>; toolCallId?: string; toolName?: string; status?: string };
export type RunEvent = { seq: number; type: string; inputTokens?: number; outputTokens?: number; error?: string; [key: string]: unknown };

const FINAL = new Set(['success', 'error', 'interrupted', 'cancelled']);

export class Api {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
  ) {}

  async call<T>(method: string, path: string, body?: unknown, expected?: number): Promise<T> {
    const res = await fetch(`${this.baseUrl}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (expected !== undefined ? res.status !== expected : !res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  async createAgent(model: string, settings: Record<string, unknown> = {}): Promise<string> {
    const name = `${model} ${Math.random().toString(36).slice(2, 8)}`;
    const agent = await this.call<{ id: string }>('POST', '/agents', { name, model, toolGroups: ['utility'], instructions: 'Use the calculator for arithmetic.', ...settings }, 201);
    return agent.id;
  }

  async createConversation(agentId: string): Promise<string> {
    return (await this.call<{ id: string }>('POST', '/conversations', { agentId }, 201)).id;
  }

  /** Sends a message and returns its run once it is final (bounded: a run that hangs fails the test). */
  async send(conversationId: string, text: string, timeoutMs = 60_000): Promise<Run> {
    const { run } = await this.call<{ run: Run }>('POST', `/conversations/${conversationId}/messages`, { text, idempotencyKey: crypto.randomUUID() }, 202);
    return this.finished(run.id, timeoutMs);
  }

  async finished(runId: string, timeoutMs = 60_000): Promise<Run> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { run } = await this.call<{ run: Run }>('GET', `/runs/${runId}`);
      if (FINAL.has(run.status)) return run;
      if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async messages(conversationId: string): Promise<Message[]> {
    return (await this.call<{ messages: Message[] }>('GET', `/conversations/${conversationId}`)).messages;
  }

  async events(runId: string): Promise<RunEvent[]> {
    const all: RunEvent[] = [];
    let after = 0;
    for (;;) {
      const page = await this.call<{ events: RunEvent[]; nextAfter: number; hasMore: boolean }>('GET', `/runs/${runId}/events?after=${after}&limit=200`);
      all.push(...page.events);
      if (!page.hasMore) return all;
      after = page.nextAfter;
    }
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    providersApp: { url: string; token: string; pid: number; offlineLog: string };
  }
}
