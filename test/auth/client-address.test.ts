// test: own process: installs the peer address header on Node's HTTP server, which stays installed for the process
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientAddress, installPeerAddressHeader, PEER_HEADER, peerAddressHeaderInstalled } from '@/server/auth/client-address';

afterEach(() => vi.unstubAllEnvs());

/** What clientAddress answers inside a real Node HTTP server (as under `next start`) for one request. */
async function addressSeenByServer(sendHeaders: Record<string, string>): Promise<string> {
  const server = http.createServer((req, res) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    res.end(clientAddress(headers));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/`, { headers: sendHeaders });
    return await res.text();
  } finally {
    server.close();
  }
}

describe('the peer address header', () => {
  it('is not trusted before it is installed: a client cannot name its own address', async () => {
    expect(peerAddressHeaderInstalled()).toBe(false);
    expect(clientAddress(new Headers({ [PEER_HEADER]: '203.0.113.9' }))).toBe('direct');
    expect(await addressSeenByServer({ [PEER_HEADER]: '203.0.113.9' })).toBe('direct');
  });

  it('once installed, carries the socket address and overwrites whatever the client sent under that name', async () => {
    installPeerAddressHeader();
    installPeerAddressHeader(); // idempotent
    expect(await addressSeenByServer({})).toBe('127.0.0.1');
    expect(await addressSeenByServer({ [PEER_HEADER]: '203.0.113.9', 'x-forwarded-for': '198.51.100.1' })).toBe('127.0.0.1');
  });

  it('with TRUST_PROXY the forwarded hop wins over the socket (the socket is the proxy)', async () => {
    installPeerAddressHeader();
    vi.stubEnv('TRUST_PROXY', '1');
    expect(await addressSeenByServer({ 'x-forwarded-for': '6.6.6.6, 198.51.100.1' })).toBe('198.51.100.1');
    // No forwarded header at all: the socket address.
    expect(await addressSeenByServer({})).toBe('127.0.0.1');
  });
});

describe('limit keys for IPv6 and IPv4-mapped addresses', () => {
  const viaProxy = (address: string) => {
    vi.stubEnv('TRUST_PROXY', '1');
    return clientAddress(new Headers({ 'x-forwarded-for': address }));
  };

  it('an IPv6 address counts as its /64: rotating the interface id must not give a fresh counter', () => {
    expect(viaProxy('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(viaProxy('2001:DB8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    // At the edge of the prefix: the last bit inside the /64 makes another key, the first bit outside does not.
    expect(viaProxy('2001:db8:1:3::')).toBe('2001:db8:1:3::/64');
    expect(viaProxy('2001:db8:1:2:8000::')).toBe('2001:db8:1:2::/64');
    expect(viaProxy('[2001:db8:1:2::9]:443')).toBe('2001:db8:1:2::/64');
    expect(viaProxy('fe80::1%eth0')).toBe('fe80::/64');
  });

  it('an IPv4-mapped IPv6 address counts as its IPv4 address, not as a separate one', () => {
    expect(viaProxy('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(viaProxy('::ffff:c000:0201')).toBe('192.0.2.1');
    expect(viaProxy('192.0.2.1')).toBe('192.0.2.1');
    expect(viaProxy('192.0.2.1:8080')).toBe('192.0.2.1');
  });

  it('the socket address of a dual-stack server is keyed the same way', async () => {
    installPeerAddressHeader();
    const server = http.createServer((req, res) => {
      res.end(clientAddress(new Headers({ [PEER_HEADER]: String(req.headers[PEER_HEADER]) })));
    });
    await new Promise<void>((resolve) => server.listen(0, '::', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      // An IPv4 client of a socket bound to :: is reported as ::ffff:127.0.0.1.
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('127.0.0.1');
      expect(await (await fetch(`http://[::1]:${port}/`)).text()).toBe('::/64');
    } finally {
      server.close();
    }
  });

  it('anything that is not an IP address is kept as one key', () => {
    expect(viaProxy('unknown')).toBe('unknown');
  });
});
