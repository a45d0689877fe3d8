import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllowedRanges, refusedAddress } from '@/server/egress/address-rule';
import { checkedAddress, EgressRefused, pinnedDispatcher, pinnedFetch, type Resolver } from '@/server/egress/pinned-dispatcher';

// The egress rule for an account's MCP servers (ADR 053): what must not happen is a connection to a private,
// loopback, link-local or metadata address — directly, through a name, or through a name that changes its answer.

const NONE = parseAllowedRanges(undefined);

describe('the address rule', () => {
  it.each([
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['224.0.0.1', 'multicast'],
  ])('refuses %s (%s)', (address, kind) => {
    const why = refusedAddress(address, NONE);
    expect(why).not.toBeNull();
    expect(why).toContain(kind === 'metadata' ? 'metadata' : kind);
  });

  it.each(['93.184.215.14', '1.1.1.1', '2606:4700:4700::1111'])('lets the public address %s through', (address) => {
    expect(refusedAddress(address, NONE)).toBeNull();
  });

  it('allows exactly the ranges the deployment lists, and nothing next to them', () => {
    const allowed = parseAllowedRanges('127.0.0.1/32, ::1/128');
    expect(refusedAddress('127.0.0.1', allowed)).toBeNull();
    expect(refusedAddress('::1', allowed)).toBeNull();
    expect(refusedAddress('::ffff:127.0.0.1', allowed)).toBeNull();
    expect(refusedAddress('127.0.0.2', allowed)).not.toBeNull();
    expect(refusedAddress('10.0.0.1', allowed)).not.toBeNull();
    expect(refusedAddress('169.254.169.254', allowed)).not.toBeNull();
  });

  it('refuses a malformed allow list, naming the entry', () => {
    expect(() => parseAllowedRanges('127.0.0.1/32, localhost')).toThrow(/"localhost"/);
  });
});

describe('resolving once, checking every answer', () => {
  const answers = (...lists: string[][]): Resolver & { calls: number } => {
    const r = Object.assign(async () => lists[Math.min(r.calls++, lists.length - 1)]!, { calls: 0 });
    return r;
  };

  it('refuses a name that resolves to 10.x', async () => {
    await expect(checkedAddress('internal.example', NONE, answers(['10.0.0.7']))).rejects.toThrow(EgressRefused);
  });

  it('refuses a name when any of its answers is private', async () => {
    await expect(checkedAddress('mixed.example', NONE, answers(['93.184.215.14', '192.168.0.1']))).rejects.toThrow(/private/);
  });

  it('refuses IP literals without resolving: 169.254.169.254, 127.0.0.1, [::1]', async () => {
    const resolver = answers(['93.184.215.14']);
    for (const host of ['169.254.169.254', '127.0.0.1', '[::1]']) await expect(checkedAddress(host, NONE, resolver)).rejects.toThrow(EgressRefused);
    expect(resolver.calls).toBe(0);
  });

  it('refuses a name that does not resolve', async () => {
    const failing: Resolver = async () => {
      throw new Error('ENOTFOUND');
    };
    await expect(checkedAddress('nowhere.example', NONE, failing)).rejects.toThrow(/could not be resolved/);
  });
});

describe('the pinned dispatcher', () => {
  let server: http.Server;
  let port = 0;
  const hosts: string[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hosts.push(req.headers.host ?? '');
      res.end('reached');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('never connects to loopback when it is not allowed (the local server sees no request)', async () => {
    const before = hosts.length;
    const f = pinnedFetch(pinnedDispatcher(NONE));
    await expect(f(`http://127.0.0.1:${port}/`)).rejects.toThrow();
    await expect(f(`http://[::1]:${port}/`)).rejects.toThrow();
    await expect(f(`http://169.254.169.254/latest/meta-data/`)).rejects.toThrow();
    expect(hosts.length).toBe(before);
  });

  it('connects to the address it checked, keeping the name in the Host header', async () => {
    const resolver: Resolver = async () => ['127.0.0.1'];
    const f = pinnedFetch(pinnedDispatcher(parseAllowedRanges('127.0.0.1/32'), resolver));
    const res = await f(`http://mcp.example.test:${port}/`);
    expect(await res.text()).toBe('reached');
    expect(hosts.at(-1)).toBe(`mcp.example.test:${port}`);
  });

  it('defeats DNS rebinding: a name answering public first and loopback second never reaches loopback', async () => {
    // The resolver is asked once per connection; a second lookup (which a check-then-connect design would do) would
    // get 127.0.0.1, which is allowed here only so that reaching it would show.
    let calls = 0;
    const rebinding: Resolver = async () => (calls++ === 0 ? ['10.9.9.9'] : ['127.0.0.1']);
    const before = hosts.length;
    const f = pinnedFetch(pinnedDispatcher(parseAllowedRanges('127.0.0.1/32'), rebinding));
    await expect(f(`http://rebind.example.test:${port}/`)).rejects.toThrow();
    expect(calls).toBe(1);
    expect(hosts.length).toBe(before);
  });

  it('connects to the answer it checked and asks the resolver once: a later, different answer is never used', async () => {
    // The first answer is the one allowed here (standing in for a public address); a second lookup would get 10.0.0.1.
    let calls = 0;
    const rebinding: Resolver = async () => (calls++ === 0 ? ['127.0.0.1'] : ['10.0.0.1']);
    const f = pinnedFetch(pinnedDispatcher(parseAllowedRanges('127.0.0.1/32'), rebinding));
    const res = await f(`http://rebind2.example.test:${port}/`);
    expect(await res.text()).toBe('reached');
    expect(calls).toBe(1);
  });
});
