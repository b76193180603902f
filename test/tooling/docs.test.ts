/**
 * The README and docs/ as a reader meets them: every link resolves (files and headings), the README
 * stays a front door, and its links are absolute under the package's repository so they work on
 * the npm page too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { headingAnchors, markdownLinks, repositoryUrl } from '../helpers/markdown';

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  homepage?: string;
  repository?: { url?: string };
};
/** Where the README's links point: the repository's files on its default branch. */
const BASE = `${repositoryUrl(pkg)}/blob/main/`;
const PAGES = [
  'README.md',
  'AGENTS.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

function headings(file: string): Set<string> {
  return headingAnchors(fs.readFileSync(file, 'utf8'));
}

/** Every markdown link of `page` outside code blocks. */
function links(page: string): string[] {
  return markdownLinks(fs.readFileSync(path.join(root, page), 'utf8'));
}

describe('the README and docs/', () => {
  it('names the repository and homepage the README links rely on', () => {
    expect(pkg.repository?.url).toMatch(/^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
    expect(pkg.homepage).toBe(`${BASE.replace(/\/blob\/main\/$/, '')}#readme`);
  });

  it.each(PAGES)('%s: every link to a file or heading of this repository resolves', (page) => {
    const broken: string[] = [];
    for (const link of links(page)) {
      let target: string;
      if (link.startsWith(BASE)) target = link.slice(BASE.length);
      else if (/^(https?:|mailto:)/.test(link)) continue;
      else
        target = path.relative(
          root,
          path.resolve(path.dirname(path.join(root, page)), link.startsWith('#') ? path.basename(page) + link : link),
        );
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const full = path.join(root, file);
      if (!fs.existsSync(full)) broken.push(`${link} (no ${file})`);
      else if (anchor && file.endsWith('.md') && !headings(full).has(anchor))
        broken.push(`${link} (no heading #${anchor} in ${file})`);
    }
    expect(broken).toEqual([]);
  });

  it('the README is a front door: about 250 lines, its links absolute for the npm page, its two commands the ones CI runs', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(260);
    const relative = links('README.md').filter((l) => !/^(https?:|mailto:|#)/.test(l));
    expect(relative).toEqual([]);
    expect(readme).toContain('npm install && npm run demo');
    expect(readme).toContain('npm install && npm test');
    expect(fs.readFileSync(path.join(root, '.ci/run'), 'utf8')).toMatch(/^npm test$/m);
  });
});
