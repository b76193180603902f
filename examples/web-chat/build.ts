/**
 * The web chat built with Vite's JavaScript API, as `vite build` would: React, and
 * `baton-agents/react` resolved to this checkout's sources (a service imports the package). A build
 * is kept under `node_modules/.cache/baton`, named by a hash of everything it can include (the
 * app, baton's sources, the installed packages), so it is made once per change, not once per run.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'baton');
/** Builds kept per app: the most recently used. */
const KEEP = 4;

/** An app to build: a folder holding its `index.html`. */
export interface ViteApp {
  /** The folder of its `index.html`. */
  root: string;
  /** The path it is served under. @example '/chat/' */
  base: string;
  /** Names its builds in the cache. */
  name: string;
}

/** The folder of the app's build, made now unless its sources are unchanged since the last one. */
export async function buildApp(app: ViteApp): Promise<string> {
  const out = path.join(CACHE, `${app.name}-${sourcesHash(app)}`);
  if (fs.existsSync(path.join(out, 'index.html'))) {
    const now = new Date();
    fs.utimesSync(out, now, now);
    return out;
  }
  const staged = `${out}.${process.pid}.tmp`;
  // Vite and its React plugin are ES modules only.
  const { build } = await import('vite');
  const { default: react } = await import('@vitejs/plugin-react');
  await build({
    root: app.root,
    base: app.base,
    configFile: false,
    logLevel: 'warn',
    plugins: [react()],
    resolve: { alias: { 'baton-agents/react': path.join(ROOT, 'src/react/index.ts') } },
    // React, the AI SDK and zod in one chunk of about 500 kB: an example's size, not a warning's.
    build: { outDir: staged, emptyOutDir: true, reportCompressedSize: false, chunkSizeWarningLimit: 1024 },
  });
  try {
    // Whole or not at all: another process may be reading the cache.
    fs.renameSync(staged, out);
  } catch {
    // Another process built the same sources meanwhile: theirs is as good.
    fs.rmSync(staged, { recursive: true, force: true });
  }
  prune(app.name);
  return out;
}

/** The web chat (`app/`), served under `/chat/`. */
export function buildWebChat(): Promise<string> {
  return buildApp({ root: path.join(__dirname, 'app'), base: '/chat/', name: 'web-chat' });
}

/** A hash of every file the build can include, and of how it is built. */
function sourcesHash(app: ViteApp): string {
  const hash = crypto.createHash('sha256');
  hash.update(`${app.base}\0`);
  const files = [__filename, path.join(ROOT, 'package.json'), path.join(ROOT, 'node_modules', '.package-lock.json')];
  for (const dir of [app.root, path.join(ROOT, 'src')]) {
    files.push(...(fs.readdirSync(dir, { recursive: true }) as string[]).map((f) => path.join(dir, f)).sort());
  }
  for (const file of files) {
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) continue;
    hash.update(`${path.relative(ROOT, file)}\0`);
    hash.update(fs.readFileSync(file));
  }
  return hash.digest('hex').slice(0, 24);
}

/** Keep the {@link KEEP} most recently used builds of the app. */
function prune(name: string): void {
  const builds = fs
    .readdirSync(CACHE)
    .filter((f) => f.startsWith(`${name}-`) && !f.endsWith('.tmp'))
    .map((f) => ({ dir: path.join(CACHE, f), used: fs.statSync(path.join(CACHE, f)).mtimeMs }))
    .sort((a, b) => b.used - a.used);
  for (const { dir } of builds.slice(KEEP)) fs.rmSync(dir, { recursive: true, force: true });
}
