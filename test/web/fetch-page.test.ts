import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Resolver } from '@/server/egress';
import { fetchPage, WebFetchError } from '@/server/web/fetch-page';
import { readablePage } from '@/server/web/readable';
import { bodyOf, gzipBomb, startStub, type Stub } from './stub-server';

// web_fetch's network half (ADR 060). What must not happen: a connection to a loopback, private, link-local or
// metadata address — asked for directly or reached through a redirect or a name — unless the deployment allows it;
// reading past the byte cap; a fetch outliving its time cap; following redirects without end.

let site: Stub;
let trap: Stub;
let trap6: Stub | null = null;

beforeAll(async () => {
  // The site the tests fetch is allowed; 127.0.0.1 and ::1 are not, and a trap listens there to show a reach.
  vi.stubEnv('EGRESS_ALLOW', '127.0.0.2/32');
  site = await startStub('127.0.0.2');
  trap = await startStub('127.0.0.1');
  trap6 = await startStub('::1').catch(() => null);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await Promise.all([site.close(), trap.close(), trap6?.close()]);
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(WebFetchError);
      return error as WebFetchError;
    },
  );

describe('the byte cap', () => {
  it.each(['ascii', 'cjk', 'emoji'] as const)('reads a %s body of exactly the cap whole, and one byte more is cut at the cap', async (kind) => {
    const cap = 1_200; // a whole number of 1-, 3- and 4-byte characters
    const whole = await fetchPage(`${site.base}/bytes?kind=${kind}&n=${cap}`, { maxBytes: cap });
    expect(whole.truncated).toBe(false);
    expect(whole.body.byteLength).toBe(cap);
    expect((await readablePage(whole)).text).toBe(bodyOf(kind, cap));

    const unit = kind === 'ascii' ? 1 : kind === 'cjk' ? 3 : 4;
    const over = await fetchPage(`${site.base}/bytes?kind=${kind}&n=${cap + unit}`, { maxBytes: cap });
    expect(over.truncated).toBe(true);
    expect(over.body.byteLength).toBe(cap);
    const read = await readablePage(over);
    expect(read.truncated).toBe(true);
    expect(read.text).toBe(bodyOf(kind, cap));
  });

  it('a body cut inside a character ends before that character, never with a broken one', async () => {
    const over = await fetchPage(`${site.base}/bytes?kind=emoji&n=8`, { maxBytes: 6 });
    expect(over.truncated).toBe(true);
    expect((await readablePage(over)).text).toBe('😀');
  });

  it('stops reading an endless body at the cap and closes the connection (the server is not drained)', async () => {
    const started = Date.now();
    const page = await fetchPage(`${site.base}/endless`, { maxBytes: 100_000 });
    expect(page.truncated).toBe(true);
    expect(page.body.byteLength).toBe(100_000);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('a compressed body', () => {
  it('counts the bytes it inflates to: a gzip bomb is cut at the cap, the rest never inflated', async () => {
    gzipBomb(); // made (and its 20 MB source freed) before measuring
    global.gc?.();
    const before = process.memoryUsage().arrayBuffers;
    const page = await fetchPage(`${site.base}/gzip-bomb`, { maxBytes: 100_000 });
    expect(page.truncated).toBe(true);
    expect(page.body.byteLength).toBe(100_000);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(15 * 1024 * 1024);
  });
});

describe('the time cap', () => {
  it('ends a page that trickles a byte at a time, within the cap', async () => {
    const started = Date.now();
    const error = await refusal(fetchPage(`${site.base}/trickle`, { timeoutMs: 500 }));
    expect(error.kind).toBe('timeout');
    expect(error.message).toMatch(/did not finish within/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('ends a server that never answers, and the run’s own cancel ends it sooner', async () => {
    expect((await refusal(fetchPage(`${site.base}/silent`, { timeoutMs: 300 }))).kind).toBe('timeout');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect((await refusal(fetchPage(`${site.base}/silent`, { signal: controller.signal }))).kind).toBe('cancelled');
  });
});

describe('redirects under the egress rule', () => {
  const to = (target: string) => `${site.base}/redirect?to=${encodeURIComponent(target)}`;
  const tenDot: Resolver = async (name) => (name === 'internal.example.test' ? ['10.0.0.7'] : ['93.184.215.14']);

  it('refuses a redirect to 127.0.0.1, 169.254.169.254, [::1] and a name resolving to 10.x; the trap servers see nothing', async () => {
    const targets = [
      `http://127.0.0.1:${trap.port}/private-data`,
      'http://169.254.169.254/latest/meta-data/',
      `http://[::1]:${trap6?.port ?? trap.port}/private-data`,
      `http://internal.example.test:${trap.port}/private-data`,
    ];
    for (const target of targets) {
      const error = await refusal(fetchPage(to(target), { resolve: tenDot }));
      expect(error.kind, target).toBe('egress');
      expect(error.message).toMatch(/Refused/);
    }
    expect(trap.requests).toEqual([]);
    expect(trap6?.requests ?? []).toEqual([]);
  });

  it('a name that does not resolve is said as such, not as an address the rule refuses', async () => {
    const nowhere: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND no-such-host.example.test'), { code: 'ENOTFOUND' });
    };
    const error = await refusal(fetchPage('http://no-such-host.example.test/', { resolve: nowhere }));
    expect(error.message).toBe('no-such-host.example.test could not be resolved (no such host, or DNS is unreachable).');
  });

  it('refuses the same addresses asked for directly, and localhost by name', async () => {
    const spellings = [
      `http://127.0.0.1:${trap.port}/`,
      'http://169.254.169.254/',
      `http://localhost:${trap.port}/`,
      'http://[fd00:ec2::254]/',
      // Other spellings of loopback: decimal, hex, IPv4-mapped IPv6, the unspecified address.
      `http://2130706433:${trap.port}/`,
      `http://0x7f.0.0.1:${trap.port}/`,
      `http://[::ffff:127.0.0.1]:${trap.port}/`,
      `http://0.0.0.0:${trap.port}/`,
      // Octal, short and zero forms (the URL parser reads them as 127.0.0.1 and 0.0.0.0), hex-mapped and
      // IPv4-compatible IPv6, a unique-local (fd00::/8) address.
      `http://0177.0.0.1:${trap.port}/`,
      `http://127.1:${trap.port}/`,
      `http://0:${trap.port}/`,
      `http://[::ffff:7f00:1]:${trap.port}/`,
      `http://[::7f00:1]:${trap.port}/`,
      `http://[fd12:3456::1]:${trap.port}/`,
    ];
    for (const target of spellings) {
      expect((await refusal(fetchPage(target))).kind, target).toBe('egress');
    }
    expect(trap.requests).toEqual([]);
  });

  it('refuses a chain of redirects that ends at a private address, after every allowed hop', async () => {
    // Three hops on the allowed site, then 127.0.0.1.
    const before = site.requests.length;
    const chained = to(to(to(`http://127.0.0.1:${trap.port}/private-data`)));
    expect((await refusal(fetchPage(chained))).kind).toBe('egress');
    expect(site.requests.length - before).toBe(3);
    // Across names: the site sends the fetch to a name (answering the allowed address, as a public one would), whose
    // page sends it on to a name answering 10.x, then to the metadata address.
    const names: Resolver = async (name) => (name === 'public.example.test' ? ['127.0.0.2'] : name === 'internal.example.test' ? ['10.0.0.7'] : []);
    const viaName = (target: string) => `http://public.example.test:${site.port}/redirect?to=${encodeURIComponent(target)}`;
    for (const last of [`http://internal.example.test:${trap.port}/`, 'http://169.254.169.254/latest/meta-data/', `http://[::ffff:127.0.0.1]:${trap.port}/`]) {
      const error = await refusal(fetchPage(to(viaName(last)), { resolve: names }));
      expect(error.kind, last).toBe('egress');
    }
    expect(trap.requests).toEqual([]);
  });

  it('refuses a name that answers a private or loopback address, asked for directly', async () => {
    for (const answer of ['10.0.0.7', '::ffff:127.0.0.1', '127.0.0.1', 'fd00::1']) {
      const error = await refusal(fetchPage(`http://internal.example.test:${trap.port}/`, { resolve: async () => [answer] }));
      expect(error.kind, answer).toBe('egress');
    }
    expect(trap.requests).toEqual([]);
  });

  it('follows up to the redirect limit, and refuses one more', async () => {
    const five = await fetchPage(`${site.base}/chain/5`, { maxRedirects: 5 });
    expect(new TextDecoder().decode(five.body)).toBe('end of the chain');
    expect(five.url.pathname).toBe('/chain/0');
    const error = await refusal(fetchPage(`${site.base}/chain/6`, { maxRedirects: 5 }));
    expect(error.kind).toBe('redirects');
    // What must not happen: a seventh request.
    expect(site.requests.filter((p) => p === '/chain/0').length).toBe(1);
  });

  it('sees a redirect loop and stops', async () => {
    const before = site.requests.length;
    const error = await refusal(fetchPage(`${site.base}/loop-a`));
    expect(error).toMatchObject({ kind: 'redirects', message: expect.stringMatching(/loop/) });
    expect(site.requests.length - before).toBe(2);
  });

  it('refuses a redirect to another scheme or to a URL with credentials', async () => {
    expect((await refusal(fetchPage(to('file:///etc/passwd')))).kind).toBe('invalid_url');
    expect((await refusal(fetchPage(to(`http://user:pw@127.0.0.2:${site.port}/json`)))).kind).toBe('invalid_url');
  });
});

describe('the URL and the content type', () => {
  it.each(['ftp://example.com/x', 'not a url', 'javascript:alert(1)', 'http://user:secret@example.com/'])('refuses %s before any connection', async (url) => {
    expect((await refusal(fetchPage(url))).kind).toBe('invalid_url');
  });

  it('refuses a URL one character past the length bound, and takes one at it', async () => {
    const path = (n: number) => `${site.base}/markdown?${'q'.repeat(n - `${site.base}/markdown?`.length)}`;
    expect((await fetchPage(path(2_048))).mediaType).toBe('text/markdown');
    expect((await refusal(fetchPage(path(2_049)))).kind).toBe('invalid_url');
  });

  it('refuses other content types without reading them, saying which', async () => {
    const pdf = await refusal(fetchPage(`${site.base}/pdf`));
    expect(pdf).toMatchObject({ kind: 'content_type', message: expect.stringContaining('"application/pdf"') });
    expect((await refusal(fetchPage(`${site.base}/untyped`))).message).toMatch(/no content type/);
  });

  it('reads JSON (also +json types) pretty-printed, and Markdown as it is', async () => {
    expect((await readablePage(await fetchPage(`${site.base}/json`))).text).toBe(JSON.stringify({ b: [1, 2], a: { c: '界😀' } }, null, 2));
    expect((await readablePage(await fetchPage(`${site.base}/problem`))).text).toBe('{\n  "title": "x"\n}');
    expect((await readablePage(await fetchPage(`${site.base}/markdown`))).text).toBe('# Notes\n\n- one\n- two');
  });

  it('a 404 is a refusal naming the status', async () => {
    expect(await refusal(fetchPage(`${site.base}/missing`))).toMatchObject({ kind: 'status', message: expect.stringContaining('404') });
  });
});
