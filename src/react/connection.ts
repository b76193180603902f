/**
 * Where the hooks of `baton-agents/react` find the service: a {@link BatonProvider} above them
 * gives its URL and the caller's token, and {@link batonFetch} sends a request as that caller,
 * turning a refusal (`application/problem+json`) into a {@link BatonRequestError} that says why.
 */
import { createContext, createElement, useContext, useMemo, type ReactNode } from 'react';

/** The service and the caller: what every hook of `baton-agents/react` needs. */
export interface BatonConnection {
  /** Where the baton service is; `''` for the page's own origin. @example 'https://baton.example.com' */
  url: string;
  /** The caller's bearer token (or a function reading the current one): reads and decisions are made as its identity. */
  token?: string | (() => string | Promise<string>);
}

const BatonContext = createContext<BatonConnection | undefined>(undefined);

/**
 * Gives the hooks below it the service and the caller's token.
 * @example createElement(BatonProvider, { url: '', token }, createElement(Inbox))   // <BatonProvider url="" token={token}><Inbox /></BatonProvider>
 */
export function BatonProvider({ url, token, children }: BatonConnection & { children?: ReactNode }): ReactNode {
  const value = useMemo(() => ({ url, ...(token !== undefined ? { token } : {}) }), [url, token]);
  return createElement(BatonContext.Provider, { value }, children);
}

/** The connection a hook uses; throws naming the hook when no {@link BatonProvider} is above it. */
export function useBatonConnection(hook: string): BatonConnection {
  const connection = useContext(BatonContext);
  if (!connection)
    throw new Error(
      `${hook}() needs a <BatonProvider url="…" token={…}> above it: it says where the baton service is and who asks`,
    );
  return connection;
}

/** A request the service refused or could not answer: its HTTP status and problem details (RFC 9457) when it sent them. */
export class BatonRequestError extends Error {
  constructor(
    message: string,
    /** The HTTP status; 0 when no answer came (the network failed). */
    readonly status: number,
    /** The problem details the service answered with, when it did. */
    readonly problem?: { title?: string; detail?: string; errors?: { path: string; message: string }[] },
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** `fetch` of `path` at the service as the connection's caller; throws {@link BatonRequestError} when the answer is not 2xx. */
export async function batonFetch(connection: BatonConnection, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const token = typeof connection.token === 'function' ? await connection.token() : connection.token;
  if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
  let response: Response;
  try {
    response = await fetch(`${connection.url.replace(/\/+$/, '')}${path}`, { ...init, headers });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new BatonRequestError(`the baton service did not answer ${path}: ${(err as Error).message}`, 0);
  }
  if (response.ok) return response;
  const problem = (await response.json().catch(() => undefined)) as BatonRequestError['problem'];
  const why = problem?.detail ?? problem?.title ?? response.statusText;
  throw new BatonRequestError(`${path} answered ${response.status}${why ? `: ${why}` : ''}`, response.status, problem);
}
