# Ensemble's image, for both engines: `docker compose up` (compose.yaml) runs three of it behind Caddy on Postgres;
# `docker run -v ensemble:/data -p 3000:3000 IMAGE` runs one on the embedded SQLite database in /data.
# Node 20 on Debian bookworm: better-sqlite3 compiles against it (STACK.md), and it is needed on Postgres too
# (conversation checkpoints stay in DATA_DIR/checkpoints.db until ADR 033 moves them).
# Not built where it was written (no Docker daemon there); each stage's commands were run by hand on Debian 12.

# Compilers for better-sqlite3, which builds from source on install.
FROM node:20-bookworm-slim AS toolchain
WORKDIR /app
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./

# What runs: production dependencies only.
FROM toolchain AS runtime-deps
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# The build needs every dependency (TypeScript, Tailwind).
FROM toolchain AS build
RUN npm ci --no-audit --no-fund
COPY . .
ENV NEXT_TELEMETRY_DISABLED=1
RUN npm run build && rm -rf .next/cache

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 DATA_DIR=/data PORT=3000
# tsx runs the user CLI (`npm run user`) and `npm run db:migrate`. It is a dev dependency (which `npm ci --omit=dev`
# leaves out, and `npm install --no-save` will not add), so it is installed globally at the version package.json pins.
COPY package.json ./
RUN npm install -g --no-audit --no-fund "tsx@$(node -p 'require("./package.json").devDependencies.tsx')" \
  && npm cache clean --force
# Sources (small) for the CLI and the migrations; the dependencies and the build from the stages above.
COPY . .
COPY --from=runtime-deps /app/node_modules ./node_modules
# Owned by the app's user: `next start` may write under .next/cache.
COPY --from=build --chown=node:node /app/.next ./.next
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node_modules/.bin/next", "start"]
