# One image for both roles: `node dist/src/main.js` (API) or `node dist/workers/main.js` (worker).
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY graphs ./graphs
COPY workers ./workers
RUN npx tsc -p tsconfig.json && npm prune --omit=dev --no-audit --no-fund

FROM node:24-slim
# LibreOffice converts .doc/.ppt uploads; Tesseract reads scanned PDFs; bubblewrap sandboxes
# the agent's bash tool and Tesseract. jemalloc replaces glibc's malloc, which keeps what Node
# frees after a load (RSS 8-24 % above start after a 30,000-run soak; with jemalloc it comes back:
# bench/README.md, "Soak"). Its folder depends on the architecture, so it is linked to one path.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libreoffice-writer-nogui libreoffice-impress-nogui tesseract-ocr tesseract-ocr-eng bubblewrap ca-certificates tini libjemalloc2 \
 && rm -rf /var/lib/apt/lists/* \
 && ln -s "$(ls /usr/lib/*-linux-gnu/libjemalloc.so.2 | head -n 1)" /usr/local/lib/libjemalloc.so.2 \
 && test -e /usr/local/lib/libjemalloc.so.2
WORKDIR /app
ENV NODE_ENV=production PORT=2026 HOST=0.0.0.0 WARREN_HOME=/data/warren LD_PRELOAD=/usr/local/lib/libjemalloc.so.2
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json redis.conf config.example.yaml ./
COPY src/store/scripts ./src/store/scripts
COPY skills ./skills
RUN mkdir -p /data/warren && chown -R node:node /data /app/skills
USER node
EXPOSE 2026
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/src/main.js"]
