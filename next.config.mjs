/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native and Node-only packages stay out of the server bundle.
  serverExternalPackages: ['better-sqlite3', '@langchain/langgraph-checkpoint-sqlite'],
  // DIST_DIR lets tests build into their own folder without touching a developer's .next.
  distDir: process.env.NEXT_DIST_DIR || '.next',
};

export default nextConfig;
