/**
 * The approvals page: one HTML shell for the inbox (`/`) and a run (`/runs/<id>`), with its script
 * (the TypeScript modules under `browser/`, bundled: ./bundle.ts) and stylesheet served beside it.
 * Nothing fetched from elsewhere, so a strict Content-Security-Policy holds.
 */
import { pageScript } from './bundle';
import { PAGE_STYLE } from './style';

/** Headers of the page and its assets. */
export const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/** The page, loading its assets from `assets` (relative, so the service works mounted under a path). */
export function pageHtml(assets: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>baton · approvals</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets}baton.css">
<script src="${assets}baton.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="bar">
  <a class="brand" id="home" href=".">baton</a>
  <nav aria-label="Pages"><a id="nav-inbox" href=".">Approvals</a></nav>
  <span class="who" id="who" aria-live="polite"></span>
</header>
<main id="main" tabindex="-1"><p class="muted">Loading…</p></main>
<div class="toast" id="toast" role="status" aria-live="polite"></div>
<noscript><p class="problem">The approvals page needs JavaScript. The API is at <a href="openapi.json">openapi.json</a>.</p></noscript>
</body>
</html>
`;
}

/** The page's script and stylesheet, by file name; the script is read (or bundled) when first asked for. */
export const PAGE_ASSETS: Record<string, { readonly type: string; readonly body: string }> = {
  'baton.js': {
    type: 'text/javascript; charset=utf-8',
    get body() {
      return pageScript();
    },
  },
  'baton.css': { type: 'text/css; charset=utf-8', body: PAGE_STYLE },
};
