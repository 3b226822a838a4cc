# The team server's image: the same engine as the desktop app, on PostgreSQL.
# docker-compose.yml runs it as the API server and as workers.
FROM node:20-bookworm-slim

WORKDIR /app
# The offline system voice that audio simulations speak their callers with (a separate process,
# as on the desktop).
RUN apt-get update && apt-get install -y --no-install-recommends espeak-ng \
    && rm -rf /var/lib/apt/lists/*
ENV ELECTRON_SKIP_BINARY_DOWNLOAD=1 \
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
    NODE_ENV=production

COPY package.json package-lock.json .npmrc ./
# Development tools are needed to build the browser interface (vite) and the command's bundle
# (esbuild); the image keeps them rather than shipping a second build step. (npm ci's prepare
# script finds no sources yet here: the bundle is built below.)
RUN npm ci --include=dev --no-audit --no-fund

COPY . .
RUN node scripts/build.mjs renderer && node scripts/build.mjs cli

# Local files (nothing of value on a team server: the store is the database).
ENV CALLBENCH_DATA_DIR=/var/lib/callbench
RUN mkdir -p /var/lib/callbench && chown node:node /var/lib/callbench
USER node

EXPOSE 4477
ENTRYPOINT ["node", "src/cli/callbench.mjs"]
# On 0.0.0.0, serve answers HTTPS only: mount a certificate and key and set CALLBENCH_TLS_CERT and
# CALLBENCH_TLS_KEY (docker-compose.yml does), or add --insecure-http behind a TLS proxy.
CMD ["serve", "--host", "0.0.0.0", "--port", "4477"]
