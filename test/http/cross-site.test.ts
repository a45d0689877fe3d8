import { afterEach, describe, expect, it } from 'vitest';
import { assertSameOriginWrite, isJsonContentType } from '@/server/http/cross-site';

const req = (method: string, headers: Record<string, string>, body?: string, url = 'http://localhost:3000/api/v1/agents') =>
  new Request(url, { method, headers, body });
const JSON_TYPE = { 'content-type': 'application/json' };
const refused = (r: Request) => expect(() => assertSameOriginWrite(r)).toThrow(expect.objectContaining({ status: 403, code: 'cross_site' }));
const allowed = (r: Request) => expect(() => assertSameOriginWrite(r)).not.toThrow();

describe('assertSameOriginWrite', () => {
  afterEach(() => {
    delete process.env.AUTH_URL;
  });

  it("allows a JSON write whose Origin is the app's own host", () => {
    allowed(req('POST', { origin: 'http://localhost:3000', ...JSON_TYPE }, '{}'));
    allowed(req('PATCH', { origin: 'http://localhost:3000', 'content-type': 'application/json; charset=utf-8' }, '{}'));
    allowed(req('DELETE', { origin: 'http://localhost:3000' }));
  });

  it('refuses a foreign Origin, an opaque "null" Origin, and a malformed one', () => {
    for (const origin of ['https://evil.example', 'http://localhost:3001', 'http://localhost.evil.example:3000', 'null', 'not a url']) {
      refused(req('POST', { origin, ...JSON_TYPE }, '{}'));
    }
    refused(req('DELETE', { origin: 'https://evil.example' }));
  });

  it('without Origin, only Sec-Fetch-Site: same-origin passes', () => {
    allowed(req('POST', { 'sec-fetch-site': 'same-origin', ...JSON_TYPE }, '{}'));
    for (const site of ['same-site', 'cross-site', 'none']) refused(req('POST', { 'sec-fetch-site': site, ...JSON_TYPE }, '{}'));
    refused(req('POST', JSON_TYPE, '{}'));
    refused(req('DELETE', {}));
  });

  it('a write with a body must be application/json (form and text types refused)', () => {
    const origin = 'http://localhost:3000';
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'text/json']) {
      refused(req('POST', { origin, 'content-type': type }, '{}'));
    }
    // A body without any Content-Type is refused too; a body-less POST (cancel, reconnect) needs none.
    refused(new Request('http://localhost:3000/x', { method: 'POST', headers: { origin, 'content-length': '2' } }));
    allowed(req('POST', { origin }));
    refused(req('DELETE', { origin, 'content-type': 'text/plain' }, 'x'));
    expect(isJsonContentType('Application/JSON ; charset=utf-8')).toBe(true);
  });

  it('reads are never refused, whatever their Origin', () => {
    allowed(req('GET', { origin: 'https://evil.example' }));
    allowed(req('HEAD', {}));
  });

  it('knows the app behind a proxy: Host, the first X-Forwarded-Host, or AUTH_URL', () => {
    const internal = 'http://127.0.0.1:3000/api/v1/agents';
    allowed(req('POST', { origin: 'https://app.example', host: 'app.example', ...JSON_TYPE }, '{}', internal));
    allowed(req('POST', { origin: 'https://app.example', host: '127.0.0.1:3000', 'x-forwarded-host': 'app.example, proxy.internal', ...JSON_TYPE }, '{}', internal));
    refused(req('POST', { origin: 'https://app.example', host: '127.0.0.1:3000', ...JSON_TYPE }, '{}', internal));
    process.env.AUTH_URL = 'https://app.example/';
    allowed(req('POST', { origin: 'https://app.example', host: '127.0.0.1:3000', ...JSON_TYPE }, '{}', internal));
  });
});
