#!/usr/bin/env node
// The `baton` command. baton ships TypeScript sources; tsx loads them (and TypeScript team modules).
require('tsx/cjs');
const { main } = require('../src/cli/main.ts');

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
