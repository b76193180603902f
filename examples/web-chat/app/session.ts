/**
 * Who is signed in and which conversation is open, kept where a reload finds them: the token in
 * the tab's session storage (a link may bring it in its fragment, which the browser never sends),
 * the conversation's id in the address (`?c=`), so a reload opens the same conversation.
 */

const TOKEN_KEY = 'baton-web-chat-token';

/** The token of this tab: one a link brought (`#token=…`, then taken out of the address), else the one kept. */
export function storedToken(): string | undefined {
  const brought = /(?:^|&)token=([^&]+)/.exec(location.hash.slice(1))?.[1];
  if (brought) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(brought));
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function keepToken(token: string | undefined): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** The open conversation's id (a conversation workflow's id), made now when the address has none. */
export function conversationId(): string {
  const params = new URLSearchParams(location.search);
  const id = params.get('c');
  if (id) return id;
  return newConversation();
}

/** Open a new conversation: a fresh id in the address. */
export function newConversation(): string {
  const id = `web-chat-${crypto.randomUUID()}`;
  const params = new URLSearchParams(location.search);
  params.set('c', id);
  history.replaceState(null, '', `${location.pathname}?${params}`);
  return id;
}
