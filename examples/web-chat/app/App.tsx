/**
 * The web chat: sign in with a token, then a conversation with the support team beside the
 * approvals inbox. Everything goes through baton's HTTP service as the token's identity.
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { BatonProvider, batonFetch, BatonRequestError, useBatonConnection } from 'baton-agents/react';
import { Conversation } from './Chat';
import { Inbox } from './Inbox';
import { conversationId, keepToken, newConversation, storedToken } from './session';

/** Who the token stands for (`GET /v1/me`). */
interface Me {
  name: string;
  roles: string[];
}

export function App() {
  const [token, setToken] = useState(storedToken);
  const [notice, setNotice] = useState<string>();
  const signOut = useCallback((why?: string) => {
    keepToken(undefined);
    setNotice(why);
    setToken(undefined);
  }, []);
  if (!token) {
    return (
      <SignIn
        notice={notice}
        onToken={(t) => {
          keepToken(t);
          setToken(t);
        }}
      />
    );
  }
  return (
    <BatonProvider url="" token={token}>
      <Shell onSignOut={signOut} />
    </BatonProvider>
  );
}

function SignIn({ notice, onToken }: { notice?: string; onToken: (token: string) => void }) {
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const token = String(new FormData(e.currentTarget).get('token') ?? '').trim();
    if (token) onToken(token);
  };
  return (
    <main className="sign-in">
      <form onSubmit={submit}>
        <h1>Support chat</h1>
        <p>Sign in with the access token baton's service gave you (`npm run example:web-chat` prints one).</p>
        {notice && <p role="alert">{notice}</p>}
        <label>
          Access token
          <input name="token" type="password" autoComplete="off" required />
        </label>
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}

function Shell({ onSignOut }: { onSignOut: (why?: string) => void }) {
  const connection = useBatonConnection('Shell');
  const [me, setMe] = useState<Me>();
  const [id, setId] = useState(conversationId);
  const wide = useMediaQuery('(min-width: 960px)');
  useEffect(() => {
    batonFetch(connection, '/v1/me')
      .then((r) => r.json() as Promise<Me>)
      .then(setMe)
      .catch((err: unknown) => {
        if (err instanceof BatonRequestError && err.status === 401)
          onSignOut('The service did not accept that token. Enter it again.');
      });
  }, [connection, onSignOut]);
  const mayStart = me?.roles.some((r) => r === 'starter' || r === 'admin') ?? false;
  return (
    <div className="shell">
      <header className="top">
        <div className="brand">
          <span className="logo" aria-hidden="true">
            ◆
          </span>
          <div>
            <strong>Acme support</strong>
            <small>triage · refunds · sales · tech</small>
          </div>
        </div>
        <div className="who">
          {me && <span className="me">{me.name}</span>}
          {mayStart && (
            <button type="button" className="quiet" onClick={() => setId(newConversation())}>
              New chat
            </button>
          )}
          <button type="button" className="quiet" onClick={() => onSignOut()}>
            Sign out
          </button>
        </div>
      </header>
      <div className="layout">
        {me && <Conversation key={id} id={id} mayStart={mayStart} />}
        {me && <Inbox conversationId={id} defaultOpen={wide || !mayStart} />}
      </div>
    </div>
  );
}

/** Whether the media query matches, following it as the window changes. */
function useMediaQuery(query: string): boolean {
  const [matches, setMatches] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const list = matchMedia(query);
    const changed = () => setMatches(list.matches);
    list.addEventListener('change', changed);
    return () => list.removeEventListener('change', changed);
  }, [query]);
  return matches;
}
