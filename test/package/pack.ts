/**
 * The package as `npm pack` makes it (its prepack script builds dist/), kept in baton's checkout
 * (`node_modules/.cache/baton`) under a hash of everything the pack is made from: the sources the
 * build compiles and bundles, the build's configuration, the files the package ships beside dist/,
 * and the installed dependencies. Packing the same sources again would only build the same dist/
 * again (minutes of CPU); any change to them packs anew.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** What `npm pack --json` says of a tarball. */
export interface Packed {
  filename: string;
  files: { path: string }[];
  size: number;
}

/** Directories and files of the checkout the pack is made from. */
const INPUTS = [
  'src',
  'workflows',
  'activities',
  'examples',
  'bin',
  'scripts',
  'package.json',
  'README.md',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.typecheck.json',
  'node_modules/.package-lock.json',
];
/** Packs kept: the most recently used. */
const KEEP = 2;

/**
 * The package packed from the checkout at `repo`, as a tarball in `dir`: a copy of the one packed
 * from the same sources before, else packed now by `pack` (which runs `npm pack`) and kept.
 */
export async function packedPackage(
  repo: string,
  dir: string,
  pack: (destination: string) => Promise<Packed>,
): Promise<Packed> {
  const cache = path.join(repo, 'node_modules', '.cache', 'baton', `package-${sourcesHash(repo)}`);
  const record = path.join(cache, 'pack.json');
  if (fs.existsSync(record)) {
    const packed = JSON.parse(fs.readFileSync(record, 'utf8')) as Packed;
    fs.copyFileSync(path.join(cache, packed.filename), path.join(dir, packed.filename));
    const now = new Date();
    fs.utimesSync(cache, now, now);
    return packed;
  }
  const packed = await pack(dir);
  // Whole or not at all: another test run may look meanwhile.
  const partial = `${cache}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(partial, { recursive: true });
    fs.copyFileSync(path.join(dir, packed.filename), path.join(partial, packed.filename));
    fs.writeFileSync(path.join(partial, 'pack.json'), JSON.stringify(packed));
    fs.renameSync(partial, cache);
    prune(path.dirname(cache));
  } catch {
    // A cache that cannot be written (or that another run wrote first) only makes the next run pack again.
    fs.rmSync(partial, { recursive: true, force: true });
  }
  return packed;
}

/** A hash of every file {@link INPUTS} names (their node_modules directories aside), by path and content. */
function sourcesHash(repo: string): string {
  const hash = crypto.createHash('sha256');
  const add = (file: string) => {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
      for (const entry of fs.readdirSync(file).sort()) if (entry !== 'node_modules') add(path.join(file, entry));
      return;
    }
    hash.update(`${path.relative(repo, file)}\0`);
    hash.update(fs.readFileSync(file));
    hash.update('\0');
  };
  for (const input of INPUTS) add(path.join(repo, input));
  return hash.digest('hex').slice(0, 32);
}

/** Keep the {@link KEEP} most recently used packs in `dir`. */
function prune(dir: string): void {
  const packs = fs
    .readdirSync(dir)
    .filter((f) => f.startsWith('package-') && !f.endsWith('.tmp'))
    .map((f) => ({ dir: path.join(dir, f), used: fs.statSync(path.join(dir, f)).mtimeMs }))
    .sort((a, b) => b.used - a.used);
  for (const { dir: old } of packs.slice(KEEP)) fs.rmSync(old, { recursive: true, force: true });
}
