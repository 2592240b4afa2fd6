# hl-agent image: compiled JavaScript, production dependencies only, run as the unprivileged `node` user.
# One image serves every service; the command picks it (default: the agent service). See compose.yaml.

# Build: every dependency (the compiler too); `npm ci` compiles src/ into dist/ through `prepare`.
# Then the development dependencies are removed, so node_modules is what production needs.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/build.mjs
COPY bin ./bin
COPY src ./src
RUN npm ci --no-audit --no-fund
# typescript stays under --omit=dev alone: it is an optional peer of viem (devOptional in the lockfile).
RUN npm prune --omit=dev --omit=optional --no-audit --no-fund

# Run: no sources, no compiler, no tsx.
FROM node:20-bookworm-slim
ENV NODE_ENV=production DATA_DIR=/data HOST=0.0.0.0 PORT=8080
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY web ./web
RUN ln -s /app/bin/hl.mjs /usr/local/bin/hl && mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["hl", "agent", "serve"]
