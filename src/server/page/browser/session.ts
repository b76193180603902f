/**
 * Who is signed in and what the page has open: the service's base path, the token (kept in this
 * tab's sessionStorage), the signed-in identity, the streams to stop when the page changes, and
 * signing out.
 */

/** The signed-in identity, as `GET /v1/me` answers. */
export interface Me {
  name: string;
  roles: string[];
}

/** The service's base path: the page works mounted under a path. */
export const BASE = location.pathname.replace(/(runs|evals|experiments)\/[^/]*\/?$/, '').replace(/[^/]*$/, '');
const TOKEN_KEY = 'baton.token';

/** What the page knows of the session. */
export const session: { me: Me | null } = { me: null };

const stops: (() => void)[] = [];
let showSignIn: (message?: string) => void = () => undefined;

export function token(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(value: string): void {
  sessionStorage.setItem(TOKEN_KEY, value);
}

/** Something to stop when the page shows something else (a stream, a listener). */
export function onLeave(stop: () => void): void {
  stops.push(stop);
}

export function stopAll(): void {
  stops.splice(0).forEach((stop) => stop());
}

/** What signing out shows: set once by the page's entry. */
export function whenSignedOut(show: (message?: string) => void): void {
  showSignIn = show;
}

export function signOut(message?: string): void {
  sessionStorage.removeItem(TOKEN_KEY);
  session.me = null;
  stopAll();
  document.getElementById('who')!.replaceChildren();
  showSignIn(message);
}
