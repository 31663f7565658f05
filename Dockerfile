# syntax=docker/dockerfile:1
#
# One image for every role of a swarm node; the command chooses the role (docker-compose.yml):
#   node apps/gateway/dist/migrate.js        apply prisma/migrations to DATABASE_URL, then exit
#   node apps/gateway/dist/main.js           gateway: /api/swarm/*, /.well-known/node-swarm, jobs
#   node apps/gateway/dist/main.js --web-only   web app alone (the web build's embedded.js)
#   (default) embedded mode: the whole node in one process, PGlite under DATA_DIR
#
# Two stages: `build` installs the workspace with its dev dependencies and compiles it; the
# `runtime` image holds only what `pnpm runtime` writes (docs/deployment.md "The runtime"): the
# compiled bundles, the migrations and the production dependencies. No pnpm, no tsx, no
# TypeScript at run time: every command above is `node` itself, so signals reach it.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
ENV PNPM_HOME=/pnpm
# pnpm from npm (corepack's signature check fails on some machines), at exactly the version
# package.json pins in "packageManager".
COPY package.json /tmp/package.json
RUN PNPM_SPEC="$(node -p "(require('/tmp/package.json').packageManager || 'pnpm@10').split('+')[0]")" \
 && npm install -g "$PNPM_SPEC" \
 && npm cache clean --force \
 && rm /tmp/package.json \
 && pnpm --version
WORKDIR /src
COPY . .
# The root postinstall generates the Prisma client (packages/db/src/generated).
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store \
    pnpm install --frozen-lockfile
RUN pnpm build
# Production dependencies of both apps at the lockfile's versions, plus the bundles.
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store \
    pnpm runtime /runtime

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/app/data
WORKDIR /app
# The code stays owned by root (read-only for the node user); only DATA_DIR is writable. Mount a
# volume there (compose does) so node data survives a new container.
COPY --from=build /runtime /app
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# SIGTERM drains: in-flight requests are answered (SWARM_DRAIN_TIMEOUT_MS), then exit 0.
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=2", "--v8-pool-size=1", "apps/gateway/dist/main.js", "--with-web"]
