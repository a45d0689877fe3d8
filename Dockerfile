# Ensemble's image: `docker compose up` (compose.yaml) runs it beside Postgres; `docker run` with a volume on /data
# runs it on the embedded SQLite database. Node 20 on Debian (better-sqlite3 compiles against it; STACK.md).
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
ENV NEXT_TELEMETRY_DISABLED=1
RUN npm run build

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 DATA_DIR=/data PORT=3000
# The whole tree (dev dependencies included): `npm run user` and `npm run db:migrate` run TypeScript through tsx.
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
CMD ["node_modules/.bin/next", "start"]
