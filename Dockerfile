# A baton worker image: serves the team module given on the command line.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY examples ./examples
COPY bin ./bin
COPY tsconfig.json ./
ENTRYPOINT []
CMD ["node", "bin/baton.js", "worker", "--team", "examples/support/team.ts"]
