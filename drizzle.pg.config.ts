import { defineConfig } from 'drizzle-kit';

// The Postgres twin of drizzle.config.ts (ADR 033): its own schema file and its own migrations folder, so the
// SQLite migrations stay exactly as every existing data directory has applied them.
export default defineConfig({
  dialect: 'postgresql',
  schema: './server/db/pg-schema.ts',
  out: './drizzle/pg',
});
