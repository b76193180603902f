// `node test/helpers/typescriptMain.cjs <file.ts> [args…]`: runs a TypeScript file of the checkout as
// the process's main module (process.argv and require.main as `node -r tsx/cjs <file.ts>` gives
// them), with tsx registered here instead of by `-r`. Node hands a process's `-r` modules to its
// worker threads as well, and Temporal's workflow thread, one for each worker a process creates,
// would then load the SDK's modules through tsx: about 0.3 s of CPU a worker.
require('tsx/cjs');
process.argv.splice(1, 1);
require('node:module').runMain();
