/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native and Node-only packages stay out of the server bundle.
  // langchain's initChatModel imports provider packages by a variable name, which a bundler can't follow;
  // keeping the LangChain family external also keeps exactly one copy of @langchain/core.
  serverExternalPackages: [
    'better-sqlite3',
    '@langchain/langgraph-checkpoint-sqlite',
    '@langchain/langgraph',
    '@langchain/core',
    'langchain',
    '@langchain/openai',
    '@langchain/anthropic',
    '@langchain/ollama',
  ],
  // DIST_DIR lets tests build into their own folder without touching a developer's .next.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // `npm test` type-checks the whole project (npm run typecheck) before its e2e build, which sets this to skip
  // doing it twice; every other build (demo, npm run build) still refuses type errors.
  typescript: { ignoreBuildErrors: process.env.NEXT_SKIP_TYPECHECK === '1' },
};

export default nextConfig;
