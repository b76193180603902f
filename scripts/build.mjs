// Build the package: compiled JavaScript with declarations (dist/), ES module entry points that
// re-export the CommonJS ones (one copy of every class, so `instanceof` holds whichever way a
// service imports baton), the prebuilt workflow bundle workers load without bundling, and the
// approvals page's script bundled from its TypeScript modules (served with plain node).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const require = createRequire(import.meta.url);

fs.rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});

/** Entry points: the name under dist/esm and the compiled CommonJS module it re-exports. */
const entries = {
  index: 'src/index.js',
  workflow: 'src/workflow.js',
  worker: 'src/worker/index.js',
  server: 'src/server/index.js',
  react: 'src/react/index.js',
  agents: 'src/agents/index.js',
  models: 'src/models/index.js',
  client: 'src/client/index.js',
  audit: 'src/audit/index.js',
  eval: 'src/eval/index.js',
  payloads: 'src/payloads/index.js',
  signing: 'src/client/signing/index.js',
  streams: 'src/streams/index.js',
  economics: 'src/economics/index.js',
  mcp: 'src/mcp/index.js',
};
fs.mkdirSync(path.join(dist, 'esm'), { recursive: true });
for (const [name, target] of Object.entries(entries)) {
  const names = Object.keys(require(path.join(dist, target)))
    .filter((n) => n !== 'default' && n !== '__esModule')
    .sort();
  const from = `../${target}`;
  fs.writeFileSync(
    path.join(dist, 'esm', `${name}.mjs`),
    `import cjs from '${from}';\n\nexport const {\n${names.map((n) => `  ${n},`).join('\n')}\n} = cjs;\n`,
  );
  fs.writeFileSync(path.join(dist, 'esm', `${name}.d.mts`), `export * from '${from}';\n`);
}

const page = require(path.join(dist, 'src/server/page/bundle.js'));
fs.writeFileSync(
  path.join(dist, 'src/server/page', page.PAGE_BUNDLE),
  page.bundlePage(path.join(root, 'src/server/page/browser')),
);

/**
 * Where a bundled module's source map says it came from: relative to its package (`baton-agents/dist/workflows/loop.js`,
 * `@temporalio/workflow/lib/workflow.js`), never this machine's absolute path, which would reach users' stack traces.
 */
function packagePath(absolute) {
  const at = absolute.lastIndexOf('/node_modules/');
  if (at >= 0) return absolute.slice(at + '/node_modules/'.length);
  return `baton-agents/${path.relative(root, absolute).split(path.sep).join('/')}`;
}

const { bundleWorkflowCode, DefaultLogger } = require('@temporalio/worker');
const workflowsPath = path.join(dist, 'workflows/index.js');
const { code } = await bundleWorkflowCode({
  workflowsPath,
  // Loaded once per workflow context and shared by its workflows (see src/worker/bundle.ts).
  preloadModules: [workflowsPath],
  // baton's own interceptors, outermost (see src/worker/bundle.ts).
  workflowInterceptorModules: [path.join(dist, 'workflows/quickSignals.js')],
  logger: new DefaultLogger('WARN'),
  webpackConfigHook: (config) => ({
    ...config,
    output: { ...config.output, devtoolModuleFilenameTemplate: (info) => packagePath(info.absoluteResourcePath) },
  }),
});
if (code.includes(root)) throw new Error(`the workflow bundle still names ${root}`);
fs.writeFileSync(path.join(dist, 'workflow-bundle.js'), code);
const sdk = require('@temporalio/workflow/package.json').version;
fs.writeFileSync(
  path.join(dist, 'workflow-bundle.json'),
  `${JSON.stringify({ '@temporalio/workflow': sdk }, null, 2)}\n`,
);
console.log(
  `built dist/ (entries: ${Object.keys(entries).join(', ')}; workflow bundle for @temporalio/workflow ${sdk}; the page's script)`,
);
