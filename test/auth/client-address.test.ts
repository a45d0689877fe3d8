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
