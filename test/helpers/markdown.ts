/**
 * Markdown as GitHub and npm read it, for the tests of the README and docs/: the links of a page
 * and the anchors its headings get.
 */

/** Every markdown link target of `text` outside fenced code blocks. */
export function markdownLinks(text: string): string[] {
  return [...text.replace(/```[\s\S]*?```/g, '').matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/** GitHub's anchor of a heading. */
export function headingSlug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');
}

/** The anchors of every heading of `text` outside fenced code blocks. */
export function headingAnchors(text: string): Set<string> {
  const out = new Set<string>();
  let code = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) code = !code;
    const m = !code && /^#+ (.*)$/.exec(line);
    if (m) out.add(headingSlug(m[1]!.trim()));
  }
  return out;
}

/**
 * Where links into the repository point, from a package.json's `repository`
 * (`git+https://github.com/owner/name.git` → `https://github.com/owner/name`); undefined when it
 * names none.
 */
export function repositoryUrl(pkg: { repository?: string | { url?: string } }): string | undefined {
  const url = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  return url?.replace(/^git\+/, '').replace(/\.git$/, '');
}
