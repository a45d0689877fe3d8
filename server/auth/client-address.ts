import 'server-only';
import diagnosticsChannel from 'node:diagnostics_channel';
import ipaddr from 'ipaddr.js';
import { env } from '@/server/env';

/**
 * Which address a request came from, for rate limiting.
 *
 * A Next.js route handler or server action never sees the socket (NextRequest.ip is gone since Next 15), and
 * `next start` only fills in `x-forwarded-for` from the socket when the client did not send one itself, so that
 * header alone is whatever the client chose. Two sources are trusted instead:
 * - PEER_HEADER, written by this process for every HTTP request from the socket's remote address (Node's
 *   `http.server.request.start` diagnostics channel fires before Next reads the headers, and overwrites anything
 *   a client sent under that name). It only counts once installPeerAddressHeader() ran in this process.
 * - `x-forwarded-for`, only when TRUST_PROXY=<n> says n reverse proxies sit in front: the address n hops from
 *   the right is the one the outermost trusted proxy saw (hops further left are the client's own claims).
 * Without either (a request that did not come through Node's HTTP server, e.g. a test calling a handler), every
 * request is DIRECT: one shared address.
 */

export const PEER_HEADER = 'x-ensemble-peer-address';
export const DIRECT = 'direct';

const INSTALLED = Symbol.for('ensemble.peerAddressHeader');
const g = globalThis as unknown as { [INSTALLED]?: boolean };

type RequestStart = { request: { headers: Record<string, string | string[] | undefined> }; socket: { remoteAddress?: string } };

/** Stamp every incoming HTTP request with its socket's address. Idempotent; call once at start-up. */
export function installPeerAddressHeader(): void {
  if (g[INSTALLED]) return;
  diagnosticsChannel.subscribe('http.server.request.start', (message) => {
    const { request, socket } = message as RequestStart;
    request.headers[PEER_HEADER] = socket.remoteAddress || DIRECT;
  });
  g[INSTALLED] = true;
}

export const peerAddressHeaderInstalled = () => g[INSTALLED] === true;

/**
 * TRUST_PROXY as a hop count (server/env.ts: 0–99; start-up refuses anything else, a later read trusts none).
 * Read at call time (not import time) so tests' stubs apply; it is parsed only when its text changes.
 */
export const trustedProxyHops = () => env.trustProxy;

/** The address to rate-limit a request by (see the module comment), as limitKey() makes it. */
export function clientAddress(headers: Headers, hops = trustedProxyHops()): string {
  if (hops > 0) {
    const chain = (headers.get('x-forwarded-for') ?? '')
      .split(',')
      .map((hop) => hop.trim())
      .filter(Boolean);
    // Fewer entries than trusted hops: the leftmost one is still written by a trusted proxy.
    if (chain.length > 0) return limitKey(chain[Math.max(0, chain.length - hops)]!);
  }
  if (peerAddressHeaderInstalled()) {
    const peer = headers.get(PEER_HEADER)?.trim();
    if (peer) return limitKey(peer);
  }
  return DIRECT;
}

/**
 * One key per party that holds an address. An IPv6 host usually gets a whole /64 (SLAAC, privacy addresses), so
 * keying on the full address would give it 2^64 fresh counters: IPv6 addresses count as their /64
 * (`2001:db8:1:2::/64`). An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, what a dual-stack socket reports) is the
 * IPv4 address it carries. Brackets and a port (`[2001:db8::1]:443`, `192.0.2.1:80`) some proxies append are
 * dropped. Anything that is no IP address is kept as it came (it can only be one key either way).
 */
export function limitKey(address: string): string {
  const bare = address.replace(/^\[([^\]]+)\](?::\d+)?$/, '$1').replace(/^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/, '$1');
  if (!ipaddr.isValid(bare)) return address;
  const ip = ipaddr.process(bare);
  if (ip.kind() === 'ipv4') return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([...parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}
