/**
 * The page's script: the modules under `browser/` bundled into one file by esbuild. An installed
 * package ships it prebuilt (`npm run build` writes it beside this module), so a service serves it
 * with plain node; in baton's own checkout it is bundled on first use and kept in
 * `node_modules/.cache/baton`, named by a hash of the modules, like the workflow bundle.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type * as Esbuild from 'esbuild';

/** The bundle's file name beside the compiled module, in dist/. */
export const PAGE_BUNDLE = 'page-bundle.js';
const SOURCES = path.join(__dirname, 'browser');

let script: string | undefined;

/** The page's script: the shipped bundle, else (in a checkout) the cached or a new one. */
export function pageScript(): string {
  script ??= shipped() ?? bundledHere();
  return script;
}

function shipped(): string | undefined {
  try {
    return fs.readFileSync(path.join(__dirname, PAGE_BUNDLE), 'utf8');
  } catch {
    return undefined;
  }
}

function bundledHere(): string {
  const files = fs.readdirSync(SOURCES).sort();
  const hash = crypto.createHash('sha256');
  for (const f of files) hash.update(`${f}\0`).update(fs.readFileSync(path.join(SOURCES, f)));
  const root = path.resolve(__dirname, '../../..');
  const entry = path.join(root, 'node_modules', '.cache', 'baton', `page-${hash.digest('hex').slice(0, 32)}.js`);
  try {
    return fs.readFileSync(entry, 'utf8');
  } catch {
    // Not made yet.
  }
  const code = bundlePage();
  try {
    fs.mkdirSync(path.dirname(entry), { recursive: true });
    // Whole or not at all: another process may read it meanwhile.
    const partial = `${entry}.${process.pid}.tmp`;
    fs.writeFileSync(partial, code);
    fs.renameSync(partial, entry);
  } catch {
    // A cache that cannot be written only bundles again next time.
  }
  return code;
}

/** Bundle `main.ts` of `sources` and what it imports into one script (esbuild, a build-time dependency). */
export function bundlePage(sources = SOURCES): string {
  let esbuild: typeof Esbuild;
  try {
    esbuild = require('esbuild') as typeof Esbuild;
  } catch {
    throw new Error(
      `the approvals page's script is not built (no ${PAGE_BUNDLE} beside ${__filename}) and esbuild is not installed to build it: run npm install, or npm run build`,
    );
  }
  const out = esbuild.buildSync({
    entryPoints: [path.join(sources, 'main.ts')],
    bundle: true,
    format: 'iife',
    target: 'es2022',
    platform: 'browser',
    tsconfig: path.join(sources, 'tsconfig.json'),
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  return out.outputFiles[0]!.text;
}
