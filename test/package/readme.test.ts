/**
 * The README as npm shows it: the one inside the packed tarball, read back out of it. npm's page
 * shows that file, not the repository's, and where it points a relative link depends on how npm
 * reads `repository` (a link to `docs/…` from the package page is not a file npm serves), so every
 * link of the packed README is absolute or an anchor of the README itself, and every absolute link
 * into the package's repository names a file or folder that exists (and a heading that exists, when
 * it names one). The tarball is packed without its build (`--ignore-scripts`): the README and
 * package.json are packed as they are.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headingAnchors, markdownLinks, repositoryUrl } from '../helpers/markdown';

const run = promisify(execFile);
const repo = path.resolve(__dirname, '../..');

interface Packed {
  readme: string;
  pkg: { homepage?: string; repository?: string | { url?: string } };
  files: string[];
}

/** Packs the checkout into `dir` and reads its README and package.json back out of the tarball. */
async function pack(dir: string): Promise<Packed> {
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
    cwd: repo,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  await run('tar', ['-xzf', path.join(dir, packed!.filename), '-C', dir, 'package/README.md', 'package/package.json']);
  return {
    readme: fs.readFileSync(path.join(dir, 'package', 'README.md'), 'utf8'),
    pkg: JSON.parse(fs.readFileSync(path.join(dir, 'package', 'package.json'), 'utf8')) as Packed['pkg'],
    files: packed!.files.map((f) => f.path),
  };
}

/** What is wrong with `link` of a README at `base` (the repository's address), or undefined. */
function brokenLink(link: string, base: string, readme: string): string | undefined {
  if (link.startsWith('#'))
    return headingAnchors(readme).has(link.slice(1)) ? undefined : `${link}: no such heading in the README`;
  if (/^mailto:/.test(link)) return undefined;
  if (!/^https?:\/\//.test(link)) return `${link}: relative, so it does not resolve on the npm page`;
  const inRepo = new RegExp(
    `^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(blob|tree)/main/([^#?]+)(?:#(.*))?$`,
  ).exec(link);
  if (!inRepo)
    return link.startsWith(`${base}/`) && !/\/(issues|pulls|releases)\b/.test(link)
      ? `${link}: into the repository but not at a file on main`
      : undefined;
  const [, kind, file, anchor] = inRepo as unknown as [string, 'blob' | 'tree', string, string | undefined];
  const full = path.join(repo, decodeURIComponent(file));
  const stat = fs.statSync(full, { throwIfNoEntry: false });
  if (!stat) return `${link}: no ${file} in the repository`;
  if (kind === 'blob' && !stat.isFile()) return `${link}: ${file} is a folder (a folder's link is /tree/)`;
  if (anchor && file.endsWith('.md') && !headingAnchors(fs.readFileSync(full, 'utf8')).has(anchor))
    return `${link}: no heading #${anchor} in ${file}`;
  return undefined;
}

describe('the README in the package', () => {
  let dir: string;
  let packed: Packed;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-readme-'));
    packed = await pack(dir);
  }, 120_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is packed, with the repository and homepage npm links to', () => {
    expect(packed.files).toContain('README.md');
    const base = repositoryUrl(packed.pkg);
    expect(base).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
    expect(packed.pkg.homepage).toBe(`${base}#readme`);
  });

  it('links only absolutely or to its own headings, and every link into the repository resolves', () => {
    const base = repositoryUrl(packed.pkg)!;
    const links = markdownLinks(packed.readme);
    // The README's way on into docs/ is through these links: a README without them is not one.
    expect(links.filter((l) => l.includes('/docs/')).length).toBeGreaterThan(10);
    expect(links.map((l) => brokenLink(l, base, packed.readme)).filter(Boolean)).toEqual([]);
  });

  it('finds what the npm page would show broken: a relative link, a missing file, a missing heading, a folder as a file', () => {
    const base = 'https://github.com/o/r';
    expect(brokenLink('docs/cli.md', base, '')).toMatch(/relative/);
    expect(brokenLink(`${base}/blob/main/docs/nothing-here.md`, base, '')).toMatch(/no docs\/nothing-here\.md/);
    expect(brokenLink(`${base}/blob/main/docs/cli.md#no-such-heading`, base, '')).toMatch(
      /no heading #no-such-heading/,
    );
    expect(brokenLink(`${base}/blob/main/examples/web-chat`, base, '')).toMatch(/is a folder/);
    expect(brokenLink('#read-on', base, '## Read on\n')).toBeUndefined();
    expect(brokenLink(`${base}/blob/main/docs/cli.md`, base, '')).toBeUndefined();
  });
});
