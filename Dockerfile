# syntax=docker/dockerfile:1
#
# One image for every role of a swarm node; the command chooses the role (docker-compose.yml):
#   pnpm db:migrate                          apply prisma/migrations to DATABASE_URL, then exit
#   pnpm --filter @swarm/gateway start       gateway: /api/swarm/*, /.well-known/node-swarm, jobs
#   node apps/web/build/index.js             web app (SvelteKit, adapter-node)
#   (default) embedded mode: the whole node in one process, PGlite under DATA_DIR
#
# The runtime keeps the whole workspace with its node_modules: the gateway runs its TypeScript
# with tsx and the packages are consumed as TypeScript source.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS base
ENV PNPM_HOME=/pnpm
# pnpm from npm (corepack's signature check fails on some machines), at exactly the version
# package.json pins in "packageManager", so pnpm never tries to download another one at run time.
COPY package.json /tmp/package.json
RUN PNPM_SPEC="$(node -p "(require('/tmp/package.json').packageManager || 'pnpm@10').split('+')[0]")" \
 && npm install -g "$PNPM_SPEC" \
 && npm cache clean --force \
 && rm /tmp/package.json \
 && pnpm --version
WORKDIR /app

# ---------------------------------------------------------------------------------------------
FROM base AS build
COPY . .
# The root postinstall generates the Prisma client (packages/db/src/generated).
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store \
    pnpm install --frozen-lockfile
RUN pnpm build

# ---------------------------------------------------------------------------------------------
FROM base AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/app/data
# The code stays owned by root (read-only for the node user); only DATA_DIR is writable. Mount a
# volume there (compose does) so node data survives a new container.
COPY --from=build /app /app
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
CMD ["pnpm", "--filter", "@swarm/gateway", "start:embedded"]
