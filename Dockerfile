# syntax=docker/dockerfile:1
# gsa-bridge as a container: the npm package exactly as `npm pack` makes it, with only its production
# dependencies (pinned by the lockfile), on a slim Node LTS image, run by a non-root user under tini.
# Configuration comes from a mounted file, the client secret from the environment; the review outbox lives in a
# volume (reviews.dataDir must be /var/lib/gsa-bridge, absolute). Recipe, the config keys a container needs, and how
# an rcon adapter reaches a game server on the Docker host (--network host, host.docker.internal, or a shared
# network): docs/operations.md ("Docker"); a Compose file: deploy/docker-compose.example.yml.
#
#   docker build -t gsa-bridge .
#   docker run -d --name gsa-bridge --stop-timeout 20 \
#     -v /etc/gsa-bridge/config.json:/etc/gsa-bridge/config.json:ro -v gsa-bridge-data:/var/lib/gsa-bridge \
#     -e GSA_CLIENT_SECRET -p 127.0.0.1:8787:8787 -p 127.0.0.1:9464:9464 gsa-bridge

ARG NODE_VERSION=24

# 1. Build with the dev dependencies (TypeScript), then pack: the image holds what the npm package holds.
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would compile before the sources are copied; the build runs below.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
# `npm pack` runs prepack: the build, and a packed package.json without the clone's install-time scripts.
RUN npm pack --pack-destination /tmp \
 && mv /tmp/gsa-bridge-*.tgz /tmp/gsa-bridge.tgz

# 2. The package with its production dependencies only, from the same lockfile.
FROM node:${NODE_VERSION}-bookworm-slim AS package
WORKDIR /app
COPY --from=build /tmp/gsa-bridge.tgz /tmp/gsa-bridge.tgz
COPY --from=build /src/package-lock.json /tmp/package-lock.json
RUN tar -xzf /tmp/gsa-bridge.tgz --strip-components=1 \
 && cp /tmp/package-lock.json ./package-lock.json \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm package-lock.json

# 3. Runtime.
FROM node:${NODE_VERSION}-bookworm-slim
# tini is PID 1: it forwards SIGTERM (drain, exit 0 within 10 s) and SIGHUP (reload) to node and reaps zombies.
# Not version-pinned: the base image tag fixes the Debian release, and the release's security updates should land.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    GSA_BRIDGE_CONFIG=/etc/gsa-bridge/config.json \
    HEALTHCHECK_URL=http://127.0.0.1:9464/healthz
WORKDIR /app
# Owned by root: the service user can read its code but not change it.
COPY --from=package /app /app
# The review outbox (reviews.jsonl and its letter files). The config must point reviews.dataDir here, absolute:
# a relative dataDir is resolved against the config file's directory, /etc/gsa-bridge, which is mounted read-only.
RUN install -d -m 0700 -o node -g node /var/lib/gsa-bridge
VOLUME ["/var/lib/gsa-bridge"]
USER node
# 8787: the mod WebSocket (a websocket adapter with host 0.0.0.0 and a token of 16+ characters);
# 9464: /healthz, /readyz, /metrics (http.host 0.0.0.0 in the config, or they answer only inside the container).
EXPOSE 8787 9464
# No curl in the image: Node's own fetch. HEALTHCHECK_URL is fixed here, not read from the config: a config that moves
# http.port, or binds http.host to one address other than 0.0.0.0, needs `-e HEALTHCHECK_URL=http://ADDRESS:PORT/healthz`
# too, or the container turns unhealthy while the sidecar runs well.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.HEALTHCHECK_URL,{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/bin/gsa-bridge.js"]
CMD ["run"]
