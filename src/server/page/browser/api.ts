/** Calling the service with the session's token; a token it does not accept signs the page out. */
import { BASE, signOut, token } from './session';

interface Problem {
  detail?: string;
  errors?: { path?: string; message?: string }[];
}

/** A problem answer as a person reads it: its detail, then each field it names and what is wrong with it. */
function problemText(problem: Problem, status: string): string {
  const fields = (problem.errors ?? [])
    .map((e) => (e.path ? `${e.path}: ${e.message ?? 'invalid'}` : e.message))
    .filter((t): t is string => !!t);
  const detail = problem.detail || status;
  return fields.length ? `${detail} (${fields.join('; ')})` : detail;
}

export async function api(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = {
    accept: 'application/json',
    ...(init.headers as Record<string, string> | undefined),
    authorization: `Bearer ${token()}`,
  };
  const res = await fetch(BASE + path, { ...init, headers });
  if (res.status === 401) {
    signOut('The service did not accept your token. Enter it again.');
    throw new Error('unauthorized');
  }
  if (!res.ok) {
    const problem = (await res.json().catch(() => ({}))) as Problem;
    throw new Error(problemText(problem, `${res.status} ${res.statusText}`));
  }
  return res;
}

/** A JSON answer of the service. */
export async function apiJson<T>(path: string, init?: RequestInit): Promise<T> {
  return (await (await api(path, init)).json()) as T;
}

/** POST a JSON body. */
export function post(path: string, body: unknown): Promise<Response> {
  return api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}
