/**
 * No two modules of baton import each other, type-only imports included (DESIGN.md, "Layout").
 * ESLint's `import-x/no-cycle` skips `import type`, so a circle of type imports would pass the lint:
 * this reads the import graph of the three roots with madge, which counts every import and re-export.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import madge from 'madge';
import { expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');

/** The roots whose modules must import downward: everything that ships, workflow code and activities. */
const ROOTS = ['src', 'workflows', 'activities'];

/** The import graph of `dirs` under `base` with type-only imports counted: its circles, its modules and the imports it could not resolve. */
async function importGraph(
  base: string,
  dirs: string[],
): Promise<{ circles: string[][]; modules: Record<string, string[]>; skipped: string[] }> {
  const graph = await madge(
    dirs.map((d) => path.join(base, d)),
    {
      baseDir: base,
      fileExtensions: ['ts', 'tsx'],
      tsConfig: path.join(root, 'tsconfig.json'),
      detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
    },
  );
  return { circles: graph.circular(), modules: graph.obj(), skipped: graph.warnings().skipped };
}

/** The circles as madge's command prints them, one a line. */
function shown(circles: string[][]): string {
  return circles.map((c, i) => `${i + 1}) ${c.join(' > ')}`).join('\n');
}

it('finds a circle made only of type imports', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'baton-cycles-'));
  try {
    await writeFile(path.join(dir, 'a.ts'), "import type { B } from './b';\nexport interface A { b?: B }\n");
    await writeFile(
      path.join(dir, 'b.ts'),
      "import type { A } from './a';\nexport type { A };\nexport interface B { a?: A }\n",
    );
    await writeFile(path.join(dir, 'c.ts'), "import type { A } from './a';\nexport type C = A;\n");
    const { circles } = await importGraph(dir, ['.']);
    expect(circles).toEqual([['a.ts', 'b.ts']]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it(
  'has no import circles in src, workflows and activities, type-only imports included',
  { timeout: 180_000 },
  async () => {
    const { circles, modules, skipped } = await importGraph(root, ROOTS);
    // A graph that failed to resolve would have no circles either: it must reach across the roots.
    expect(skipped).toEqual([]);
    expect(modules['src/workflow.ts']).toContain('src/common/messages.ts');
    expect(modules['workflows/handoffRun.ts']).toContain('workflows/loop.ts');
    expect(Object.keys(modules).filter((m) => m.startsWith('activities/')).length).toBeGreaterThan(0);
    const message = `${circles.length} import circle(s), type-only imports counted. Break each at its cause: move the shared types (and only where needed, small pure functions) down to a module that imports nothing above it, so every import points down (DESIGN.md).\n${shown(circles)}`;
    expect(circles.length, message).toBe(0);
  },
);
