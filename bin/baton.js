#!/usr/bin/env node
// The `baton` command. In an installed package it runs the compiled CLI; in baton's own checkout,
// the TypeScript sources through tsx. tsx, when installed, also loads TypeScript team modules.
const fs = require('node:fs');
const path = require('node:path');

const source = path.join(__dirname, '../src/cli/main.ts');
// In the checkout, the examples' `import … from 'baton-agents'` is the sources (tsconfig.json's paths), from any directory.
if (fs.existsSync(source)) process.env.TSX_TSCONFIG_PATH ??= path.join(__dirname, '../tsconfig.json');
let tsx = false;
try {
  require('tsx/cjs');
  tsx = true;
} catch {
  // Without tsx, team modules are JavaScript.
}
const { main } = require(tsx && fs.existsSync(source) ? source : '../dist/src/cli/main.js');

// A reader that goes away (`baton audit … | head`) is not an error of ours.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

/** Exit once stdout and stderr are written: process.exit drops output still queued for a full pipe. */
function exit(code) {
  process.exitCode = code;
  let open = 2;
  const flushed = () => {
    open -= 1;
    if (open === 0) process.exit(code);
  };
  process.stdout.write('', flushed);
  process.stderr.write('', flushed);
}

main(process.argv.slice(2)).then(exit, (err) => {
  console.error(err);
  exit(1);
});
