/**
 * Workflow bundles kept on disk in baton's own checkout (`node_modules/.cache/baton`), so a process
 * that starts a worker there (a test, the `baton` command) does not bundle the same sources again:
 * bundling takes seconds of CPU. An entry is named by a hash of every file under `src/` and
 * `workflows/` (all a bundle of baton's own can include), the installed dependencies and the
 * bundle's options, so any change to them bundles anew. An installed package ships its bundle
 * prebuilt and keeps nothing here.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { WorkflowBundleOption } from '@temporalio/worker';

const ROOT = path.resolve(__dirname, '../..');
/** Entries kept: the most recently used. */
const KEEP = 8;

/**
 * The bundle `make` gives for these options (`parts`: its interceptor modules and failure
 * converter), from the cache when the sources are unchanged since it was made.
 */
export async function cachedBundle(
  parts: string[],
  make: () => Promise<{ code: string }>,
): Promise<WorkflowBundleOption> {
  let entry: string | undefined;
  try {
    entry = bundleCacheEntry(ROOT, parts);
  } catch {
    // A source file went away while it was read: bundle what is there now.
  }
  if (!entry) return make();
  try {
    const code = fs.readFileSync(entry, 'utf8');
    const now = new Date();
    fs.utimesSync(entry, now, now);
    return { code };
  } catch {
    // Not made yet.
  }
  const bundle = await make();
  try {
    fs.mkdirSync(path.dirname(entry), { recursive: true });
    // Whole or not at all: another process may read it meanwhile.
    const partial = `${entry}.${process.pid}.tmp`;
    fs.writeFileSync(partial, bundle.code);
    fs.renameSync(partial, entry);
    prune(path.dirname(entry));
  } catch {
    // A cache that cannot be written only makes the next worker slower to start.
  }
  return { code: bundle.code };
}

/**
 * The cache file for a bundle with these options of the checkout at `root`; `undefined` when `root`
 * is not a checkout (an installed package) or an option names a module outside its sources.
 */
export function bundleCacheEntry(root: string, parts: string[]): string | undefined {
  if (!fs.existsSync(path.join(root, 'workflows', 'index.ts')) || !fs.existsSync(path.join(root, 'node_modules')))
    return undefined;
  const sources = ['src', 'workflows'].map((d) => path.join(root, d));
  if (!parts.every((p) => sources.some((dir) => path.resolve(p).startsWith(dir + path.sep)))) return undefined;
  const hash = crypto.createHash('sha256');
  for (const p of parts) hash.update(`${p}\0`);
  for (const file of [
    path.join(root, 'node_modules', '.package-lock.json'),
    path.join(root, 'package.json'),
    path.join(root, 'tsconfig.json'),
  ]) {
    hash.update(`${file}\0`);
    if (fs.existsSync(file)) hash.update(fs.readFileSync(file));
  }
  for (const dir of sources) {
    const files = (fs.readdirSync(dir, { recursive: true }) as string[]).map((f) => path.join(dir, f)).sort();
    for (const file of files) {
      if (!fs.statSync(file).isFile()) continue;
      hash.update(`${file}\0`);
      hash.update(fs.readFileSync(file));
    }
  }
  return path.join(root, 'node_modules', '.cache', 'baton', `workflow-bundle-${hash.digest('hex').slice(0, 32)}.js`);
}

/** Keep the {@link KEEP} most recently used entries in `dir`. */
function prune(dir: string): void {
  const entries = fs
    .readdirSync(dir)
    .filter((f) => f.startsWith('workflow-bundle-') && f.endsWith('.js'))
    .map((f) => ({ file: path.join(dir, f), used: fs.statSync(path.join(dir, f)).mtimeMs }))
    .sort((a, b) => b.used - a.used);
  for (const { file } of entries.slice(KEEP)) fs.rmSync(file, { force: true });
}
