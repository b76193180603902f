/**
 * The workflow bundle cache of baton's checkout: an entry is reused only while every source a bundle
 * can include, the dependencies and the bundle's options are unchanged.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleCacheEntry, cachedBundle } from '../../src/worker/bundleCache';

const root = path.resolve(__dirname, '../..');
const dirs: string[] = [];

/** A checkout of its own: sources, an entry point and installed dependencies. */
function checkout(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bundle-cache-'));
  dirs.push(dir);
  fs.mkdirSync(path.join(dir, 'src/worker'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'workflows'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'workflows/index.ts'), 'export * from "./loop";\n');
  fs.writeFileSync(path.join(dir, 'workflows/loop.ts'), 'export async function loop() {}\n');
  fs.writeFileSync(path.join(dir, 'src/worker/interceptors.ts'), 'export const interceptors = () => ({});\n');
  fs.writeFileSync(path.join(dir, 'node_modules/.package-lock.json'), '{"packages":{}}\n');
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the workflow bundle cache', () => {
  it('names the same entry while nothing changes, and a new one when a source, a dependency or an option does', () => {
    const dir = checkout();
    const first = bundleCacheEntry(dir, []);
    expect(first).toMatch(/node_modules\/\.cache\/baton\/workflow-bundle-[0-9a-f]{32}\.js$/);
    expect(bundleCacheEntry(dir, [])).toBe(first);

    fs.appendFileSync(path.join(dir, 'workflows/loop.ts'), '// changed\n');
    const afterWorkflow = bundleCacheEntry(dir, []);
    expect(afterWorkflow).not.toBe(first);

    fs.writeFileSync(path.join(dir, 'src/worker/new.ts'), 'export {};\n');
    const afterNewFile = bundleCacheEntry(dir, []);
    expect(afterNewFile).not.toBe(afterWorkflow);

    fs.writeFileSync(path.join(dir, 'node_modules/.package-lock.json'), '{"packages":{"x":{}}}\n');
    const afterInstall = bundleCacheEntry(dir, []);
    expect(afterInstall).not.toBe(afterNewFile);

    expect(bundleCacheEntry(dir, [path.join(dir, 'src/worker/interceptors.ts')])).not.toBe(afterInstall);
  });

  it('keeps nothing for an installed package or for modules outside the sources', () => {
    const dir = checkout();
    expect(bundleCacheEntry(dir, [path.join(os.tmpdir(), 'interceptors.ts')])).toBeUndefined();
    expect(bundleCacheEntry(dir, [path.join(dir, 'test/interceptors.ts')])).toBeUndefined();
    fs.rmSync(path.join(dir, 'workflows/index.ts'));
    fs.writeFileSync(path.join(dir, 'workflows/index.js'), 'module.exports = {};\n');
    expect(bundleCacheEntry(dir, [])).toBeUndefined();
  });

  it('bundles once for options it has not seen, then answers from the cache', async () => {
    // Options no other bundle has: a module under src/ of this checkout named for this test.
    const parts = [path.join(root, 'src', `bundle-cache-test-${process.pid}-${Date.now()}.ts`)];
    let made = 0;
    const make = async () => ({ code: `// bundle ${++made}` });
    try {
      expect(await cachedBundle(parts, make)).toEqual({ code: '// bundle 1' });
      expect(await cachedBundle(parts, make)).toEqual({ code: '// bundle 1' });
      expect(made).toBe(1);
      // From elsewhere: bundled every time.
      const outside = [path.join(os.tmpdir(), 'interceptors.ts')];
      await cachedBundle(outside, make);
      await cachedBundle(outside, make);
      expect(made).toBe(3);
    } finally {
      const entry = bundleCacheEntry(root, parts);
      if (entry) fs.rmSync(entry, { force: true });
    }
  });
});
