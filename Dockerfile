# One image for the three production processes: `api` (default), `worker` and `migrate`.
#   docker build -t proctor .
#   docker run --rm -e DATABASE_URL=... proctor migrate

# The build stage: the CLI bundled into dist/ and the workflows bundled for Temporal (scripts/build.ts). A process
# then loads in about 2 CPU-s instead of 4 through tsx, and a worker no longer bundles its workflows (about 3 CPU-s).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.ts ./scripts/
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
RUN node --import tsx scripts/build.ts /app/dist

FROM node:20-bookworm-slim

# chromium-headless-shell: the worker's browser, much smaller than full Chromium and all Playwright needs
# (on a Debian without that package, install `chromium` and set PROCTOR_CHROMIUM_PATH=/usr/lib/chromium/chromium).
# fonts-liberation: pages render with real metrics in screenshots. ca-certificates: HTTPS to the LLM and S3.
# tini: PID 1 that forwards SIGTERM and reaps the Chromium processes the worker starts.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      chromium-headless-shell fonts-liberation ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# Dependencies first, so a source change does not reinstall them.
# `npm install` with the lockfile, not `npm ci`: npm leaves other platforms' optional packages (@swc/core-*)
# out of the lock, which `ci` rejects (see scripts/setup.mjs). The bundle imports these packages at run time.
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force

COPY --from=build /app/dist ./dist

# The data dir must be writable by the unprivileged user: the CLI creates it even when S3 is configured.
RUN mkdir -p /var/lib/proctor && chown node:node /var/lib/proctor

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    PROCTOR_DATA_DIR=/var/lib/proctor \
    PROCTOR_CHROMIUM_PATH=/usr/lib/chromium/chromium-headless-shell \
    PROCTOR_WORKFLOW_BUNDLE=/app/dist/workflows.js

# `node` (uid 1000) comes with the base image; the sources stay root-owned and read-only to it.
USER node

EXPOSE 3000

# For the api. The worker and migrate serve no HTTP: docker-compose.yml disables the check for them.
# /healthz answers 503 while the database or Temporal is unreachable, which marks the container unhealthy.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# --enable-source-maps: stack traces in logs name src/ files and lines, not the bundle's.
ENTRYPOINT ["tini", "--", "node", "--enable-source-maps", "dist/proctor.js"]
CMD ["api"]
