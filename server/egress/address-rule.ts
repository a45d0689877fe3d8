import 'server-only';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses an account's outbound calls may reach (MCP servers and web fetch; ADR 054, 060): public unicast
 * only. Private, loopback, link-local, unique-local, carrier-grade NAT, multicast, reserved, unspecified, translated
 * and IPv4-compatible ranges are refused, and so are the cloud metadata addresses by name, unless the deployment
 * allows a range explicitly (EGRESS_ALLOW, or the older MCP_EGRESS_ALLOW). An IPv4 address written as IPv6
 * (::ffff:a.b.c.d) is judged as the IPv4 address it is.
 */

export type AllowedRange = [ipaddr.IPv4 | ipaddr.IPv6, number];

const METADATA = ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'];
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/** A CIDR list ("127.0.0.1/32, ::1/128") parsed; a malformed entry throws, naming it. */
export function parseAllowedRanges(list: string | undefined): AllowedRange[] {
  if (!list) return [];
  return list
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      try {
        const [addr, bits] = ipaddr.parseCIDR(entry);
        return [normalize(addr), addr.kind() === 'ipv6' && normalize(addr).kind() === 'ipv4' ? Math.max(0, bits - 96) : bits] as AllowedRange;
      } catch {
        throw new Error(`"${entry}" is not an address range (CIDR, like 127.0.0.1/32 or ::1/128)`);
      }
    });
}

/** An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged as the IPv4 address it is. */
function normalize(addr: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
}

function allowedExplicitly(addr: ipaddr.IPv4 | ipaddr.IPv6, allowed: AllowedRange[]): boolean {
  return allowed.some(([range, bits]) => range.kind() === addr.kind() && addr.match(range as never, bits));
}

/** ipaddr.js's range names as a person reads them (with their article); any other name is split into words. */
const RANGE_WORDS: Readonly<Record<string, string>> = {
  linkLocal: 'a link-local',
  uniqueLocal: 'a unique local (private IPv6)',
  carrierGradeNat: 'a carrier-grade NAT (shared)',
  ipv4Mapped: 'an IPv4-mapped',
};

function rangeInWords(range: string): string {
  const known = RANGE_WORDS[range];
  if (known) return known;
  const words = range.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return `${/^[aeiou]/.test(words) ? 'an' : 'a'} ${words}`;
}

/** null when the address may be reached, else why not (said to the person, without the address's owner's secrets). */
export function refusedAddress(address: string, allowed: AllowedRange[]): string | null {
  if (!ipaddr.isValid(address)) return `"${address}" is not an IP address`;
  const addr = normalize(ipaddr.parse(address));
  if (allowedExplicitly(addr, allowed)) return null;
  const text = addr.toNormalizedString();
  if (METADATA.some((m) => ipaddr.parse(m).toNormalizedString() === text)) return `${address} is a cloud metadata address`;
  const range = addr.range();
  if (range !== 'unicast') return `${address} is ${rangeInWords(range)} address, not a public one`;
  // ::a.b.c.d, RFC 4291's deprecated IPv4-compatible form: ipaddr.js calls it unicast, yet no public host is reached
  // by it, and the IPv4 address it carries may be loopback or private (::7f00:1 is 127.0.0.1 written so).
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).match(IPV4_COMPATIBLE)) return `${address} is an IPv4-compatible IPv6 address, not a public one`;
  return null;
}
