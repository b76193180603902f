/** The codec server's sign-in page: a token in, a session cookie out, for browsers that cannot send a bearer token. */

/** The cookie that carries a signed-in browser's session. */
export const SESSION_COOKIE = 'baton_codec_session';

/** The page, with an error or a success note. */
export function loginPage(error?: string, signedIn = false): string {
  const note = signedIn
    ? '<p class="ok">Signed in. The Temporal UI shows decoded payloads when its codec endpoint is this server and "Include cross-origin credentials" is on.</p>'
    : error
      ? `<p class="error">${escapeHtml(error)}</p>`
      : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>baton codec server</title>
<style>body{font:15px system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}input{font:inherit;width:100%;padding:.4rem;margin:.5rem 0}.error{color:#b00}.ok{color:#070}</style></head>
<body><h1>baton codec server</h1>
<p>Decodes baton's encrypted payloads for the Temporal UI and <code>temporal --codec-endpoint</code>. Sign in with the codec server's token.</p>
${note}
<form method="post" action="login"><label>Token <input type="password" name="token" autocomplete="current-password" required></label><button type="submit">Sign in</button></form>
</body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
