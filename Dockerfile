# baton's image: a worker (`baton worker --team …`) or the HTTP service (`baton serve`), run from the
# TypeScript sources through tsx. docker-compose.yml builds it for both.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# The Temporal SDK and zod are peer dependencies that are also dev dependencies here, so
# `--omit=dev` would leave them out: drop the dev list instead, and keep tsx (it loads the sources
# and TypeScript team modules) at the version the lockfile pins.
RUN npm pkg delete devDependencies \
 && npm pkg set "dependencies.tsx=$(node -p "require('./package-lock.json').packages['node_modules/tsx'].version")" \
 && npm install --no-audit --no-fund \
 && npm cache clean --force
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY examples ./examples
COPY bin ./bin
USER node
ENTRYPOINT []
CMD ["node", "bin/baton.js", "worker", "--team", "examples/support/team.ts"]
