/**
 * Headers every response carries (pages get their nonce CSP from proxy.ts; see docs/decisions/010). API responses
 * are JSON or downloads and never run anything, so their CSP allows nothing at all and sandboxes the document: this
 * header replaces a route's own (a file's content, an export), so it must hold everything those promise (ADR 058).
 */
const securityHeaders = [
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
  // Older browsers that don't know CSP frame-ancestors.
  { key: 'X-Frame-Options', value: 'DENY' },
];
const apiHeaders = [{ key: 'Content-Security-Policy', value: "sandbox; default-src 'none'; frame-ancestors 'none'" }];

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  async headers() {
    return [
      { source: '/:path*', headers: securityHeaders },
      { source: '/api/:path*', headers: apiHeaders },
    ];
  },
  // Native and Node-only packages stay out of the server bundle.
  // langchain's initChatModel imports provider packages by a variable name, which a bundler can't follow;
  // keeping the LangChain family external also keeps exactly one copy of @langchain/core.
  serverExternalPackages: [
    'better-sqlite3',
    'pg',
    '@langchain/langgraph-checkpoint-postgres',
    '@langchain/langgraph-checkpoint-sqlite',
    '@langchain/langgraph',
    '@langchain/core',
    'langchain',
    '@langchain/openai',
    '@langchain/anthropic',
    '@langchain/ollama',
  ],
  experimental: {
    // Next copies a page request's body for proxy.ts before anything authenticates it, 10 MB by default: an anonymous
    // POST to any page path would hold that much. Server actions take at most 1 MB anyway (their own cap), so the
    // copy needs no more. Past it Next stops copying but would read on to the body's end: server/http/page-body-guard.ts
    // refuses or cuts off a page body past the same 1 MB before that.
    proxyClientMaxBodySize: '1mb',
    // Turbopack keeps a build cache on disk for the next build; a CI run builds once on a fresh clone and never reads
    // it, and writing it cost half the build's wall time there (docs/performance.md, CI). Local builds keep it.
    turbopackFileSystemCacheForBuild: !process.env.CI,
  },
  // DIST_DIR lets tests build into their own folder without touching a developer's .next.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // `npm test` type-checks the whole project (npm run typecheck) before its e2e build, which sets this to skip
  // doing it twice; every other build (demo, npm run build) still refuses type errors.
  typescript: { ignoreBuildErrors: process.env.NEXT_SKIP_TYPECHECK === '1' },
};

export default nextConfig;
