/** The examples are written as a service would write them, so they can be copied into one. */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const examples = path.resolve(__dirname, '../../examples');

it('import baton by its package name, and nothing outside examples/ by path', () => {
  const files = fs.readdirSync(examples, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  expect(files.length).toBeGreaterThan(3);
  const outside = files.flatMap((file) => {
    const source = fs.readFileSync(path.join(examples, file), 'utf8');
    const specifiers = [...source.matchAll(/\bfrom\s+'([^']+)'/g)].map((m) => m[1]!);
    return specifiers
      .filter(
        (s) => s.startsWith('.') && !path.resolve(examples, path.dirname(file), s).startsWith(examples + path.sep),
      )
      .map((s) => `${file}: ${s}`);
  });
  expect(outside).toEqual([]);
  for (const team of ['support/team.ts', 'research/team.ts'])
    expect(fs.readFileSync(path.join(examples, team), 'utf8')).toMatch(/from 'baton-agents';/);
});
