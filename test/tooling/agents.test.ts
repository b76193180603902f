/**
 * AGENTS.md's rules are checked where it says they are: every rule says how (lint, test or review);
 * every lint rule it names reports a violation of the rule on the folders the rule governs (a probe
 * file breaking it, linted with the project's own configuration); every test it names exists; and
 * the checks of rules that a plain reading can do are done here (the model harness registers every
 * operations file; every test docs/bad-inputs.md names exists).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

interface Rule {
  n: number;
  text: string;
}

/** The numbered rules of AGENTS.md, each with its whole text (continuation lines joined). */
function rules(): Rule[] {
  const out: Rule[] = [];
  for (const line of read('AGENTS.md').split('\n')) {
    const start = /^(\d+)\. (.*)$/.exec(line);
    if (start) out.push({ n: Number(start[1]), text: start[2]! });
    else if (/^\s+\S/.test(line) && out.length) out.at(-1)!.text += ` ${line.trim()}`;
    else if (line.trim() && !/^\s/.test(line) && out.length && !/^#/.test(line)) out.at(-1)!.text += ` ${line.trim()}`;
  }
  return out;
}

/** The ESLint rules a rule names after `_Lint:_` (Markdown emphasis, as Prettier writes it), up to the end of that sentence. */
function lintRules(rule: Rule): string[] {
  const after = rule.text.split(/[*_]Lint:[*_]/).slice(1);
  // An ESLint rule's name: words joined by hyphens, perhaps after its plugin's name.
  return after.flatMap((part) =>
    [...part.split(/\.\s|\.$|;/)[0]!.matchAll(/`((?:@?[\w-]+\/)?[a-z]+(?:-[a-z]+)+)`/g)].map((m) => m[1]!),
  );
}

const lines = (n: number) => Array.from({ length: n }, (_, i) => `export const a${i} = ${i};`).join('\n');

/**
 * For each lint rule AGENTS.md names, probes that break it: a path (where the rule applies) and
 * its text. Each probe must be reported by that rule.
 */
const PROBES: Record<string, { file: string; text: string }[]> = {
  'import-x/no-restricted-paths': [
    { file: 'src/common/__probe.ts', text: "export { createBatonApp } from '../server/app';\n" },
    { file: 'activities/__probe.ts', text: "export { connectBaton } from '../src/client/connect';\n" },
    { file: 'src/client/__probe.ts', text: "export { createBatonApp } from '../server/app';\n" },
    {
      file: 'workflows/chain/__probe.ts',
      text: "import type { Guards } from '../guards/guard';\nexport type G = Guards;\n",
    },
    { file: 'workflows/chain/__probe.ts', text: "export { Steering } from '../live/steering';\n" },
    {
      file: 'workflows/chain/__probe.ts',
      text: "import type { Economy } from '../economics/economy';\nexport type E = Economy;\n",
    },
  ],
  'import-x/no-nodejs-modules': [
    { file: 'workflows/__probe.ts', text: "import fs from 'fs';\nexport const x = fs;\n" },
    { file: 'src/common/__probe.ts', text: "import fs from 'fs';\nexport const x = fs;\n" },
  ],
  'no-restricted-imports': [
    { file: 'workflows/__probe.ts', text: "import { z } from 'zod';\nexport const x = z;\n" },
    { file: 'workflows/chain/__probe.ts', text: "export { connectBaton } from '../../src/client/connect';\n" },
    { file: 'src/common/__probe.ts', text: "import OpenAI from 'openai';\nexport const x = OpenAI;\n" },
  ],
  'no-restricted-syntax': [
    { file: 'workflows/__probe.ts', text: 'export let runs = 0;\n' },
    { file: 'src/common/__probe.ts', text: 'let runs = 0;\nexport const next = () => ++runs;\n' },
  ],
  'max-lines': ['src', 'workflows', 'activities', 'test', 'bench', 'drill', 'scripts', 'examples'].map((dir) => ({
    file: `${dir}/__probe.ts`,
    text: lines(301),
  })),
};

/**
 * What the project's lint configuration reports of `text` at `file`, running only the rule
 * `ruleId` (the others, those needing type information among them, are not what is probed here).
 */
async function reported(ruleId: string, file: string, text: string): Promise<string[]> {
  const eslint = new ESLint({
    cwd: root,
    ruleFilter: (rule) => rule.ruleId === ruleId,
    overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
  });
  const [result] = await eslint.lintText(text, { filePath: path.join(root, file) });
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

describe('AGENTS.md', () => {
  const all = rules();

  it('numbers its rules 1, 2, 3, … and says of each how it is checked', () => {
    expect(all.length).toBeGreaterThan(10);
    expect(all.map((r) => r.n)).toEqual(all.map((_, i) => i + 1));
    expect(all.filter((r) => !/[*_](lint|test|review)(?![a-z])/i.test(r.text)).map((r) => r.n)).toEqual([]);
  });

  it('has a probe for every lint rule it names, and names every lint rule probed here', () => {
    const named = new Set(all.flatMap(lintRules));
    expect([...named].sort()).toEqual(expect.arrayContaining(Object.keys(PROBES).concat('import-x/no-cycle').sort()));
    expect([...named].filter((name) => !(name in PROBES) && name !== 'import-x/no-cycle')).toEqual([]);
  });

  it.each(Object.entries(PROBES))('%s reports what breaks its rule, where the rule applies', async (ruleId, probes) => {
    for (const { file, text } of probes) expect(await reported(ruleId, file, text), file).toContain(ruleId);
  });

  it('max-lines allows the 300 lines the rule allows', async () => {
    expect(all.find((r) => r.text.includes('`max-lines`'))!.text).toMatch(/No file over 300 lines/);
    expect(await reported('max-lines', 'src/__probe.ts', lines(300))).toEqual([]);
  });

  describe('import-x/no-cycle', () => {
    const dir = fs.mkdtempSync(path.join(root, 'test', '__cycle-probe-'));
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('reports two modules that import each other', async () => {
      fs.writeFileSync(path.join(dir, 'a.ts'), "import { b } from './b';\nexport const a = () => b();\n");
      fs.writeFileSync(path.join(dir, 'b.ts'), "import { a } from './a';\nexport const b = () => a();\n");
      expect(
        await reported(
          'import-x/no-cycle',
          path.relative(root, path.join(dir, 'a.ts')),
          read(path.relative(root, path.join(dir, 'a.ts'))),
        ),
      ).toContain('import-x/no-cycle');
    });
  });

  it('names tests and files that exist', () => {
    const named = all.flatMap((r) =>
      [...r.text.matchAll(/`((?:test|src|workflows|docs)\/[\w./-]+)`/g)].map((m) => m[1]!.replace(/\/\*\*.*$/, '')),
    );
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((file) => !fs.existsSync(path.join(root, file)))).toEqual([]);
  });

  it('rule on the model harness: every file of test/model/operations/ is registered in its index', () => {
    const index = read('test/model/operations/index.ts');
    const files = fs
      .readdirSync(path.join(root, 'test/model/operations'))
      .filter((f) => f.endsWith('.ts') && f !== 'index.ts');
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((f) => !index.includes(`from './${f.replace(/\.ts$/, '')}'`))).toEqual([]);
    // …and each file's operations are in the list, not only imported.
    const imported = [...index.matchAll(/import \{ (\w+) \} from '\.\/\w+'/g)].map((m) => m[1]!);
    expect(imported.filter((name) => !index.includes(`...${name}`))).toEqual([]);
  });

  it('rule on bad inputs: every test docs/bad-inputs.md names exists', () => {
    const named = [
      ...new Set([...read('docs/bad-inputs.md').matchAll(/\b(test\/[\w/.-]+\.test\.tsx?)\b/g)].map((m) => m[1]!)),
    ];
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((file) => !fs.existsSync(path.join(root, file)))).toEqual([]);
  });
});
