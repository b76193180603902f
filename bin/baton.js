#!/usr/bin/env node
// The `baton` command. baton ships TypeScript sources; tsx loads them (and TypeScript team modules).
require('tsx/cjs');
const { main } = require('../src/cli/main.ts');

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
