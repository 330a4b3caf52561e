# Every image of the product from one file: `--target <service>` picks it. Build from the repository
# root (`npm run images` builds them all; by hand:
#   podman build --format docker --target backend -t localhost/wordgame/backend:latest .
# podman's OCI format drops HEALTHCHECK, hence --format docker).
#
# Services (the compose file's names; images are tagged localhost/wordgame/<service>:<tag>):
#   backend, gateway (with the wallet page), bot                       the product
#   platform-emulator, provider-emulator, mailcatcher                  the dev profile's stand-ins
#   postgres, nats, prometheus, alertmanager                           local equivalents of the public
#     images (Debian's postgresql-15, nats-server, prometheus, prometheus-alertmanager), for hosts
#     that cannot pull from Docker Hub; compose takes them through POSTGRES_IMAGE, NATS_IMAGE,
#     PROMETHEUS_IMAGE, ALERTMANAGER_IMAGE and uses the public images when these are unset.
#
# BASE_IMAGE: a Debian bookworm image with Node (.nvmrc's exact version) and npm in /usr/local and
# Debian's apt sources: the official node:24.18.1-bookworm-slim, or the debootstrap base that
# `npm run images -- --base debian` makes where Docker Hub is out of reach.
#
# Stages: deps (the workspace's production dependencies at lockfile versions, plus the two build
# tools esbuild and vite at lockfile versions) -> build (every bundle, each with exactly the packages
# it imports beside it in dist/, and the wallet page) -> one small runtime stage per service that
# copies its dist/ folder alone and runs as uid 10001. No dev dependency reaches a runtime stage:
# `npm run images` lists each image's node_modules against the workspace's devDependencies and fails
# on a match (tools/build/dev-deps-check.mjs).
ARG BASE_IMAGE=node:24.18.1-bookworm-slim

FROM ${BASE_IMAGE} AS deps
WORKDIR /src
# Every workspace manifest, so that `npm ci` sees the lockfile's workspaces.
COPY package.json package-lock.json ./
COPY apps/backend/package.json apps/backend/
COPY apps/bot/package.json apps/bot/
COPY apps/gateway/package.json apps/gateway/
COPY apps/wallet-web/package.json apps/wallet-web/
COPY libs/config/package.json libs/config/
COPY libs/contracts/package.json libs/contracts/
COPY libs/h2-keepalive/package.json libs/h2-keepalive/
COPY libs/h2-unary/package.json libs/h2-unary/
COPY libs/i18n/package.json libs/i18n/
COPY libs/lifecycle/package.json libs/lifecycle/
COPY libs/logging/package.json libs/logging/
COPY libs/net-errors/package.json libs/net-errors/
COPY libs/service-kit/package.json libs/service-kit/
COPY libs/testkit/package.json libs/testkit/
COPY tools/bench/package.json tools/bench/
COPY tools/build/package.json tools/build/
COPY tools/devstack/package.json tools/devstack/
COPY tools/k8s/package.json tools/k8s/
COPY tools/faults/package.json tools/faults/
COPY tools/mailcatcher/package.json tools/mailcatcher/
COPY tools/platform-emulator/package.json tools/platform-emulator/
COPY tools/provider-emulator/package.json tools/provider-emulator/
# The build tools are devDependencies (never in a runtime stage): installed apart at the lockfile's
# versions and only into this build tree.
RUN export npm_config_nodedir=/usr/local \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && lock() { node -p "require('./package-lock.json').packages['node_modules/$1'].version"; } \
 && npm install --prefix /opt/buildtools --ignore-scripts --no-audit --no-fund --no-save "esbuild@$(lock esbuild)" "vite@$(lock vite)" \
 && cp -a /opt/buildtools/node_modules/. node_modules/ && rm -rf /opt/buildtools

FROM deps AS build
COPY tsconfig.base.json ./
COPY tools/build tools/build
COPY libs libs
COPY apps/backend apps/backend
COPY apps/bot apps/bot
COPY apps/gateway apps/gateway
COPY apps/wallet-web apps/wallet-web
COPY tools/mailcatcher tools/mailcatcher
COPY tools/platform-emulator tools/platform-emulator
COPY tools/provider-emulator tools/provider-emulator
# better-sqlite3 (the bot's outbox) ships prebuilt binaries for eight platforms and SQLite's C
# sources for a node-gyp rebuild: the bot keeps only this image's linux-<arch>.node (glibc; the
# package loads prebuilds/<platform>-<arch>.node when nothing was compiled), 24 MB less.
RUN for app in apps/backend apps/bot apps/gateway tools/mailcatcher tools/platform-emulator tools/provider-emulator; do \
      node tools/build/bundle.mjs "$app" && node tools/build/prune.mjs "$app" || exit 1; \
    done \
 && sqlite=dist/apps/bot/node_modules/better-sqlite3 \
 && test -f "$sqlite/prebuilds/linux-$(node -p process.arch).node" \
 && rm -rf "$sqlite/deps" "$sqlite/src" \
 && find "$sqlite/prebuilds" -name '*.node' ! -name "linux-$(node -p process.arch).node" -delete \
 && node node_modules/vite/bin/vite.js build --config apps/wallet-web/vite.config.ts --logLevel warn \
 && chmod -R u=rwX,go=rX dist

# What every service's runtime shares: the entrypoint (no argument runs main.js; a bundled command's
# name runs that command: `docker compose run --rm backend operator-create …`). The code is root's
# (COPY without --chown; the build stage left nothing group- or world-writable), so the runtime user
# 10001 can read it and change none of it; only /app/.data (a volume's mount point) is its own.
# Compose runs every service `read_only: true` with a tmpfs /tmp, Kubernetes with readOnlyRootFilesystem.
FROM ${BASE_IMAGE} AS runtime
WORKDIR /app
COPY --from=build /src/tools/build/entrypoint.sh /usr/local/bin/wordgame-entrypoint
COPY --from=build /src/tools/build/early-stop.mjs /usr/local/lib/wordgame/early-stop.mjs
RUN mkdir -p /app/.data && chown 10001:10001 /app/.data
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/wordgame-entrypoint"]

# Backend: Connect service (h1 + h2c) over PostgreSQL (DATABASE_URL is required).
FROM runtime AS backend
ENV NODE_ENV=production BACKEND_HOST=0.0.0.0 BACKEND_PORT=4000
COPY --from=build /src/dist/apps/backend ./
USER 10001:10001
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.BACKEND_PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# Gateway: REST, console, provider notifications, /metrics, the BotLink mTLS gRPC server, and the
# wallet page's static files (/wallet).
FROM runtime AS gateway
ENV NODE_ENV=production GATEWAY_HOST=0.0.0.0 GATEWAY_HTTP_PORT=8080 BOTLINK_HOST=0.0.0.0 BOTLINK_PORT=8443
COPY --from=build /src/dist/apps/gateway ./
COPY --from=build /src/dist/apps/wallet-web ./dist/apps/wallet-web
USER 10001:10001
EXPOSE 8080 8443
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.GATEWAY_HTTP_PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# Bot: platform updates and the outbox (better-sqlite3 13 ships its prebuilt N-API binary: nothing is
# compiled or downloaded).
FROM runtime AS bot
ENV NODE_ENV=production BOT_HEALTH_HOST=127.0.0.1 BOT_HEALTH_PORT=8090
COPY --from=build /src/dist/apps/bot ./
USER 10001:10001
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.BOT_HEALTH_PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# Telegram Bot API emulator (dev profile).
FROM runtime AS platform-emulator
ENV NODE_ENV=production PLATFORM_EMULATOR_HOST=0.0.0.0 PLATFORM_EMULATOR_PORT=8081
COPY --from=build /src/dist/tools/platform-emulator ./
USER 10001:10001
EXPOSE 8081
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PLATFORM_EMULATOR_PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# Payment provider (YooKassa v3 subset) emulator (dev profile).
FROM runtime AS provider-emulator
ENV NODE_ENV=production PROVIDER_EMULATOR_HOST=0.0.0.0 PROVIDER_EMULATOR_PORT=8082
COPY --from=build /src/dist/tools/provider-emulator ./
USER 10001:10001
EXPOSE 8082
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PROVIDER_EMULATOR_PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# Mail catcher: SMTP in, an HTTP view of what arrived (dev profile: product mail and alerts).
FROM runtime AS mailcatcher
ENV NODE_ENV=production MAILCATCHER_HOST=0.0.0.0 MAILCATCHER_SMTP_PORT=1025 MAILCATCHER_HTTP_PORT=1080
COPY --from=build /src/dist/tools/mailcatcher ./
USER 10001:10001
EXPOSE 1025 1080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.MAILCATCHER_HTTP_PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# Debian packages for the local equivalents below: no service started at install, no default cluster.
FROM ${BASE_IMAGE} AS debian
RUN printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 0755 /usr/sbin/policy-rc.d \
 && mkdir -p /etc/postgresql-common/createcluster.d \
 && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/wordgame.conf

# PostgreSQL 15 as the official postgres:15 behaves for this stack: POSTGRES_USER, POSTGRES_PASSWORD
# and POSTGRES_DB make the cluster in /var/lib/postgresql/data on first start (password auth from
# the network), pg_isready on PATH for the compose health check.
FROM debian AS postgres
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-15 >/dev/null \
 && rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/man/* \
 && install -d -o postgres -g postgres -m 0700 /var/lib/postgresql/data \
 && install -d -o postgres -g postgres -m 2775 /var/run/postgresql
COPY --chmod=0755 tools/images/postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin PGDATA=/var/lib/postgresql/data
USER postgres
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint"]

# NATS server (Debian's nats-server), invoked as the official image is: `command: ["-c", "<conf>"]`.
FROM debian AS nats
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nats-server >/dev/null \
 && rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/man/*
USER 65534:65534
EXPOSE 4222
# nats-server exits 1 on SIGTERM and 0 on SIGINT, both after a clean shutdown.
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/sbin/nats-server"]

# Prometheus (Debian's package), with wget for the compose health check; data in /prometheus.
FROM debian AS prometheus
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus wget >/dev/null \
 && rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/man/* \
 && install -d -o 65534 -g 65534 /prometheus
USER 65534:65534
EXPOSE 9090
ENTRYPOINT ["/usr/bin/prometheus"]

# Alertmanager (Debian's package), with wget for the compose health check; data in /alertmanager.
FROM debian AS alertmanager
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus-alertmanager wget >/dev/null \
 && rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/man/* \
 && install -d -o 65534 -g 65534 /alertmanager
USER 65534:65534
EXPOSE 9093
ENTRYPOINT ["/usr/bin/prometheus-alertmanager"]
