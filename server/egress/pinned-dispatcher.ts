import 'server-only';
import dns from 'node:dns';
import net from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { refusedAddress, type AllowedRange } from './address-rule';

/**
 * The one way an account's MCP server is reached (issue 28, ADR 054): every connection — the first, a reconnect, a
 * redirect's — resolves its host name once, refuses it unless every address is allowed (address-rule.ts), and then
 * connects to that checked address, with the name kept for TLS (SNI, certificate) and the Host header. A name that
 * answers a public address to the check and a private one to the connect (DNS rebinding) can't get through: there is
 * no second lookup.
 */

export type Resolver = (hostname: string) => Promise<string[]>;

export class EgressRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EgressRefused';
  }
}

export const systemResolver: Resolver = async (hostname) => (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** The address to connect to for this host: an IP literal is checked as it is; a name is resolved once, every answer checked. */
export async function checkedAddress(host: string, allowed: AllowedRange[], resolve: Resolver = systemResolver): Promise<string> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (net.isIP(bare)) {
    const why = refusedAddress(bare, allowed);
    if (why) throw new EgressRefused(`Refused: ${why}`);
    return bare;
  }
  let addresses: string[];
  try {
    addresses = await resolve(bare);
  } catch {
    // Still a refusal (no address could be checked), but not one the rule made: said as what happened.
    throw new EgressRefused(`${bare} could not be resolved (no such host, or DNS is unreachable)`);
  }
  if (addresses.length === 0) throw new EgressRefused(`Refused: ${bare} has no address`);
  for (const address of addresses) {
    const why = refusedAddress(address, allowed);
    if (why) throw new EgressRefused(`Refused: ${bare} resolves to ${why.replace(/^\S+ is /, '')}`);
  }
  return addresses[0]!;
}

/** An undici dispatcher whose every connection goes to a checked address. */
export function pinnedDispatcher(allowed: AllowedRange[], resolve: Resolver = systemResolver, timeoutMs = 10_000): Agent {
  const base = buildConnector({ timeout: timeoutMs });
  return new Agent({
    connect: (opts, callback) => {
      checkedAddress(opts.hostname, allowed, resolve).then(
        (address) => {
          const name = opts.hostname.replace(/^\[|\]$/g, '');
          base({ ...opts, hostname: address, servername: net.isIP(name) ? undefined : (opts.servername ?? name) }, callback);
        },
        (err: unknown) => callback(err as Error, null),
      );
    },
  });
}

/** A fetch that goes through the pinned dispatcher (the shape MCP's HTTP transport takes). */
export function pinnedFetch(dispatcher: Agent): typeof fetch {
  return ((input: string | URL | Request, init?: RequestInit) =>
    undiciFetch(input as never, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
}
