import { afterEach, describe, expect, it } from 'vitest';
import { RECONNECT_MAX_MS, SILENCE_FACTOR, defaultReconnectDelay, openPushStream, type PushStreamStatus } from '@/lib/push-stream';
import { until } from '../support/wait';

/** A fake server: each call to fetch gets the next scripted answer; a stream answer is a controller the test writes to. */
type Scripted = { status: number; headers?: Record<string, string> } | 'stream' | 'network-error';

function fakeServer(script: Scripted[]) {
  const requests: Array<{ url: string; lastEventId: string | null; signal: AbortSignal }> = [];
  const streams: Array<ReadableStreamDefaultController<Uint8Array>> = [];
  const encoder = new TextEncoder();
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    requests.push({ url: String(input), lastEventId: headers.get('last-event-id'), signal: init!.signal! });
    const next = script.shift() ?? 'network-error';
    if (next === 'network-error') throw new TypeError('Failed to fetch');
    if (next === 'stream') {
      const body = new ReadableStream<Uint8Array>({ start: (c) => void streams.push(c) });
      return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    }
    return new Response(JSON.stringify({ error: { code: 'x', message: 'x' } }), { status: next.status, headers: next.headers });
  }) as typeof fetch;
  const write = (i: number, text: string) => streams[i]!.enqueue(encoder.encode(text));
  return { fetchImpl, requests, streams, write };
}

const opened: Array<{ close(): void }> = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});

function open(server: ReturnType<typeof fakeServer>, extra: { heartbeatMs?: number; delays?: Array<[number, number | null]> } = {}) {
  const statuses: PushStreamStatus[] = [];
  const messages: Array<{ id?: string; event?: string; data: string }> = [];
  const stream = openPushStream({
    url: '/api/v1/teams/t1/events',
    fetch: server.fetchImpl,
    heartbeatMs: extra.heartbeatMs ?? 60_000,
    onStatus: (s) => statuses.push(s),
    onMessage: (m) => messages.push(m),
    reconnectDelay: (failures, retryAfter) => {
      extra.delays?.push([failures, retryAfter]);
      return 5;
    },
  });
  opened.push(stream);
  return { statuses, messages, stream };
}

describe('openPushStream', () => {
  it('delivers messages, is open from the first one, and reconnects with Last-Event-ID after the stream ends', async () => {
    const server = fakeServer(['stream', 'stream']);
    const { statuses, messages } = open(server);
    await until(() => server.streams.length === 1);
    expect(statuses).toEqual([{ state: 'connecting' }]);
    server.write(0, 'id: 4\nevent: team\ndata: {"revision":4,"jobIds":null}\n\n: heartbeat\n\nid: 5\nevent: te');
    server.write(0, 'am\ndata: {"revision":5,"jobIds":["a"]}\n\n');
    await until(() => messages.length === 2);
    expect(messages.map((m) => [m.id, m.event, JSON.parse(m.data).revision])).toEqual([
      ['4', 'team', 4],
      ['5', 'team', 5],
    ]);
    expect(statuses.at(-1)).toEqual({ state: 'open' });
    expect(server.requests[0]!.lastEventId).toBeNull();

    server.streams[0]!.close();
    await until(() => server.requests.length === 2);
    expect(statuses).toContainEqual({ state: 'down', failures: 1, retryInMs: 5 });
    expect(server.requests[1]!.lastEventId).toBe('5');
  });

  it('replaces a connection that goes silent past the heartbeat bound, but not one that hears heartbeats', async () => {
    const heartbeatMs = 40;
    const server = fakeServer(['stream', 'stream']);
    const { statuses } = open(server, { heartbeatMs });
    await until(() => server.streams.length === 1);
    server.write(0, 'id: 1\nevent: team\ndata: {}\n\n');
    // Heartbeats for three bounds' worth of time: the connection must stay the only one.
    const deadline = Date.now() + heartbeatMs * SILENCE_FACTOR * 3;
    while (Date.now() < deadline) {
      server.write(0, ': heartbeat\n\n');
      await new Promise((r) => setTimeout(r, heartbeatMs / 2));
    }
    expect(server.requests).toHaveLength(1);
    // Then silence: the stream is taken as dead, aborted and replaced.
    await until(() => server.requests.length === 2, 2_000);
    expect(server.requests[0]!.signal.aborted).toBe(true);
    expect(statuses.some((s) => s.state === 'down')).toBe(true);
  });

  it('stops for good on 404 and 401 (a gone team or a lost session is not retried)', async () => {
    for (const status of [404, 401]) {
      const server = fakeServer([{ status }, 'stream']);
      const { statuses } = open(server);
      await until(() => statuses.at(-1)?.state === 'closed');
      expect(statuses.at(-1)).toEqual({ state: 'closed', status });
      await new Promise((r) => setTimeout(r, 30));
      expect(server.requests).toHaveLength(1);
    }
  });

  it('waits out a 429’s Retry-After, and counts failures across network errors and 5xx', async () => {
    const delays: Array<[number, number | null]> = [];
    const server = fakeServer([{ status: 429, headers: { 'retry-after': '30' } }, 'network-error', { status: 503 }, 'stream']);
    const { statuses } = open(server, { delays });
    await until(() => server.streams.length === 1);
    expect(delays).toEqual([
      [1, 30_000],
      [2, null],
      [3, null],
    ]);
    server.write(0, 'id: 9\nevent: team\ndata: {}\n\n');
    await until(() => statuses.at(-1)?.state === 'open');
  });

  it('close() ends the connection and no reconnect follows', async () => {
    const server = fakeServer(['stream', 'stream']);
    const { stream } = open(server);
    await until(() => server.streams.length === 1);
    stream.close();
    expect(server.requests[0]!.signal.aborted).toBe(true);
    await new Promise((r) => setTimeout(r, 30));
    expect(server.requests).toHaveLength(1);
  });
});

describe('defaultReconnectDelay', () => {
  it('doubles from 1 s to the cap, ±25 %, and honours Retry-After as given', () => {
    expect(defaultReconnectDelay(1, null, () => 0.5)).toBe(1_000);
    expect(defaultReconnectDelay(2, null, () => 0.5)).toBe(2_000);
    expect(defaultReconnectDelay(3, null, () => 0.5)).toBe(4_000);
    expect(defaultReconnectDelay(4, null, () => 0.5)).toBe(RECONNECT_MAX_MS);
    expect(defaultReconnectDelay(50, null, () => 0.5)).toBe(RECONNECT_MAX_MS);
    expect(defaultReconnectDelay(1, null, () => 0)).toBe(750);
    expect(defaultReconnectDelay(50, null, () => 0.999999)).toBeLessThanOrEqual(RECONNECT_MAX_MS * 1.25);
    expect(defaultReconnectDelay(7, 30_000, () => 0)).toBe(30_000);
  });
});
