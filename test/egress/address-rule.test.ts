import { describe, expect, it } from 'vitest';
import { parseAllowedRanges, refusedAddress } from '@/server/egress/address-rule';
import { checkedAddress, EgressRefused, systemResolver, type Resolver } from '@/server/egress/pinned-dispatcher';

// The egress rule's address matrix (issue 29 "Egress: a matrix of addresses"; ADR 054, 060), shared by MCP servers
// and web fetch. What must not happen: any address that is not public unicast — however it is written, and whatever
// a name answers — being let through without the deployment allowing its range. test/mcp/egress.test.ts holds the
// pinned connection (one lookup, DNS rebinding); test/web/fetch-page.test.ts the same matrix through real fetches
// and redirect chains.

const NONE = parseAllowedRanges(undefined);

describe('the address matrix', () => {
  it.each([
    // Cloud metadata, by address, also written as IPv6.
    ['169.254.169.254', /metadata/],
    ['::ffff:169.254.169.254', /metadata/],
    ['::ffff:a9fe:a9fe', /metadata/],
    ['fd00:ec2::254', /metadata/],
    ['100.100.100.200', /metadata/],
    // Loopback and unspecified, IPv4 and IPv6, and IPv4 written as IPv6 (mapped, compatible, translated).
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['::1', /loopback/],
    ['::ffff:127.0.0.1', /loopback/],
    ['::ffff:7f00:1', /loopback/],
    ['::7f00:1', /IPv4-compatible/],
    ['::a00:1', /IPv4-compatible/],
    ['::ffff:0:7f00:1', /rfc6145/],
    ['64:ff9b::7f00:1', /rfc6052/],
    ['2002:7f00:1::', /6to4/],
    ['2001::1', /teredo/],
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /unspecified/],
    ['::', /unspecified/],
    // Private, shared and link-local.
    ['10.0.0.1', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['::ffff:10.0.0.1', /private/],
    ['::ffff:192.168.0.1', /private/],
    ['100.64.0.1', /a carrier-grade NAT \(shared\) address/],
    ['169.254.1.1', /a link-local address/],
    ['fe80::1', /a link-local address/],
    ['fe80::1%eth0', /a link-local address/],
    // fc00::/7, both halves: fd00::/8 is where unique-local addresses are actually made.
    ['fc00::1', /a unique local \(private IPv6\) address/],
    ['fd00::1', /a unique local \(private IPv6\) address/],
    ['fd12:3456:789a::1', /a unique local \(private IPv6\) address/],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', /a unique local \(private IPv6\) address/],
    ['fec0::1', /site local/],
    // Multicast, broadcast, reserved and documentation ranges.
    ['224.0.0.1', /multicast/],
    ['ff02::1', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['240.0.0.1', /reserved/],
    ['198.18.0.1', /reserved/],
    ['192.0.2.1', /reserved/],
    ['2001:db8::1', /reserved/],
  ])('refuses %s', (address, why) => {
    expect(refusedAddress(address, NONE)).toMatch(why);
  });

  it('says why in words a person reads: an article that fits, no code names', () => {
    expect(refusedAddress('0.0.0.0', NONE)).toBe('0.0.0.0 is an unspecified address, not a public one');
    expect(refusedAddress('127.0.0.1', NONE)).toBe('127.0.0.1 is a loopback address, not a public one');
    expect(refusedAddress('fe80::1', NONE)).toBe('fe80::1 is a link-local address, not a public one');
    // Must not happen: ipaddr.js's own names (linkLocal, carrierGradeNat, deprecatedSiteLocal…) shown to the person.
    for (const address of ['100.64.0.1', '169.254.1.1', 'fc00::1', 'fec0::1', '2002::1', '2001::1', '64:ff9b::1'].filter((a) => refusedAddress(a, NONE))) {
      expect(refusedAddress(address, NONE), address).not.toMatch(/[a-z][A-Z]/);
    }
  });

  it.each(['93.184.215.14', '1.1.1.1', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:93.184.215.14'])('lets the public address %s through', (address) => {
    expect(refusedAddress(address, NONE)).toBeNull();
  });

  it('refuses what is not an address at all', () => {
    expect(refusedAddress('example.com', NONE)).toMatch(/not an IP address/);
    expect(refusedAddress('', NONE)).toMatch(/not an IP address/);
  });
});

describe('what the deployment allows', () => {
  it('is exactly the listed ranges, at their edges and one past them', () => {
    const allowed = parseAllowedRanges('10.1.0.0/16, fd12:3456::/32');
    expect(refusedAddress('10.1.0.0', allowed)).toBeNull();
    expect(refusedAddress('10.1.255.255', allowed)).toBeNull();
    expect(refusedAddress('::ffff:10.1.2.3', allowed)).toBeNull();
    expect(refusedAddress('10.0.255.255', allowed)).toMatch(/private/);
    expect(refusedAddress('10.2.0.0', allowed)).toMatch(/private/);
    expect(refusedAddress('fd12:3456:ffff::1', allowed)).toBeNull();
    expect(refusedAddress('fd12:3457::1', allowed)).toMatch(/a unique local \(private IPv6\) address/);
    // Allowing a private range does not open the metadata address or loopback.
    expect(refusedAddress('169.254.169.254', allowed)).toMatch(/metadata/);
    expect(refusedAddress('127.0.0.1', allowed)).toMatch(/loopback/);
  });

  it('an IPv4-mapped allowance (::ffff:127.0.0.1/128) is the IPv4 address it maps', () => {
    const allowed = parseAllowedRanges('::ffff:127.0.0.1/128');
    expect(refusedAddress('127.0.0.1', allowed)).toBeNull();
    expect(refusedAddress('127.0.0.2', allowed)).toMatch(/loopback/);
  });
});

describe('IPv4 written other ways, as a connection gets it', () => {
  // A host name that is not a dotted quad is resolved (the system resolver reads decimal, octal, hex and short forms
  // as the IPv4 address they spell); its answer is what is judged, so every spelling of loopback is refused.
  it.each(['2130706433', '0177.0.0.1', '0x7f.0.0.1', '0x7f000001', '127.1', '017700000001'])('refuses %s (127.0.0.1)', async (host) => {
    await expect(checkedAddress(host, NONE, systemResolver)).rejects.toThrow(/loopback/);
  });

  it.each(['0', '0x0'])('refuses %s (0.0.0.0)', async (host) => {
    await expect(checkedAddress(host, NONE, systemResolver)).rejects.toThrow(EgressRefused);
  });

  it('refuses a literal in brackets, IPv4-mapped, without asking the resolver', async () => {
    let asked = 0;
    const resolver: Resolver = async () => (asked++, ['93.184.215.14']);
    for (const host of ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::7f00:1]', '[fd00::1]', '[::]']) {
      await expect(checkedAddress(host, NONE, resolver), host).rejects.toThrow(EgressRefused);
    }
    expect(asked).toBe(0);
  });
});

describe('what a name answers', () => {
  const answering =
    (...addresses: string[]): Resolver =>
    async () =>
      addresses;

  it.each([
    ['10.0.0.7', /private/],
    ['127.0.0.1', /loopback/],
    ['::1', /loopback/],
    ['::ffff:127.0.0.1', /loopback/],
    ['169.254.169.254', /metadata/],
    ['fd00::1', /a unique local \(private IPv6\) address/],
  ])('refuses a name answering %s', async (address, why) => {
    await expect(checkedAddress('internal.example.test', NONE, answering(address))).rejects.toThrow(why);
  });

  it('refuses a name when any one of its answers is not public, whichever comes first', async () => {
    await expect(checkedAddress('mixed.example.test', NONE, answering('93.184.215.14', '10.0.0.1'))).rejects.toThrow(/private/);
    await expect(checkedAddress('mixed.example.test', NONE, answering('::1', '93.184.215.14'))).rejects.toThrow(/loopback/);
  });

  it('refuses a name with no answer, and lets one with public answers through to the first', async () => {
    await expect(checkedAddress('empty.example.test', NONE, answering())).rejects.toThrow(/no address/);
    expect(await checkedAddress('public.example.test', NONE, answering('93.184.215.14', '2606:4700:4700::1111'))).toBe('93.184.215.14');
  });

  it('localhost is loopback by name', async () => {
    await expect(checkedAddress('localhost', NONE, systemResolver)).rejects.toThrow(/loopback/);
  });
});
