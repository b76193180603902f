/**
 * Where the OpenAI provider sends one call: the `openai` client for an endpoint and model, the
 * defaults that suit the server behind it, and whether anything listens there.
 */
import net from 'node:net';
import OpenAI from 'openai';
import { ModelRequestError, toApplicationFailure } from '../common/errors';
import type { OpenAIModelSpec } from '../common/model';
import { isOpenAIItself } from './openaiOutput';

/**
 * How long a server may go without sending anything: until the answer starts (streamed) or until
 * the whole answer (not streamed), then between chunks. Local servers on a CPU take their time.
 */
export const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * `max_tokens` of requests to servers other than OpenAI's own API when the model's settings give
 * none: a small local model that repeats itself otherwise generates until its context is full.
 */
export const DEFAULT_LOCAL_MAX_TOKENS = 2048;

/**
 * One endpoint and model, as the provider calls it.
 * @internal
 */
export interface Endpoint {
  client: OpenAI;
  /** The raw body of the latest error answer (the client keeps only its `error` field). */
  errorBody: { text?: string };
  /** The endpoint and model: what the provider learns about a server is kept under it. */
  key: string;
  /** Kept out of failures: a server may echo it, and failures are recorded in history. */
  apiKey?: string;
  timeoutMs: number;
}

/** The endpoint of `spec`: `settings.baseURL`, else the provider's, else `OPENAI_BASE_URL`, else OpenAI's own. */
export function openEndpoint(spec: OpenAIModelSpec, options: { apiKey?: string; baseURL?: string }): Endpoint {
  const baseURL = spec.settings?.baseURL ?? options.baseURL ?? process.env.OPENAI_BASE_URL;
  const apiKey = options.apiKey ?? process.env.OPENAI_API_KEY;
  if (!apiKey && !baseURL) {
    throw toApplicationFailure(
      new ModelRequestError('OPENAI_API_KEY is not set in the worker (set it, or OPENAI_BASE_URL for a local server)'),
    );
  }
  const timeoutMs = spec.settings?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const errorBody: Endpoint['errorBody'] = {};
  const client = new OpenAI({
    // Local OpenAI-compatible servers often need no key; the client insists on one.
    apiKey: apiKey ?? 'unused',
    baseURL,
    maxRetries: 0,
    // Until the answer's headers; on a timeout the client aborts the request, so the server may stop.
    timeout: timeoutMs,
    fetch: async (url, init) => {
      const res = await fetch(url, init);
      if (!res.ok)
        errorBody.text = await res
          .clone()
          .text()
          .catch(() => undefined);
      return res;
    },
  });
  return { client, errorBody, key: `${client.baseURL}|${spec.model}`, timeoutMs, ...(apiKey ? { apiKey } : {}) };
}

/**
 * The `max_tokens` a request carries when its model's settings give none: the provider's own
 * option (`false`: none), else {@link DEFAULT_LOCAL_MAX_TOKENS} for servers other than OpenAI's own
 * API (whose reasoning models refuse `max_tokens`).
 */
export function defaultMaxTokens(baseURL: string, option: number | false | undefined): number | undefined {
  if (option === false) return undefined;
  if (option !== undefined) return option;
  return isOpenAIItself(baseURL) ? undefined : DEFAULT_LOCAL_MAX_TOKENS;
}

/** Whether something accepts TCP connections at `baseURL`'s host and port within `ms`: a slow server does, an unreachable one does not. */
export function acceptsConnections(baseURL: string, ms = 1_000): Promise<boolean> {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return Promise.resolve(false);
  }
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (accepted: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(accepted);
    };
    const timer = setTimeout(() => done(false), ms);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** `err` with every occurrence of `secret` in its message and stack replaced: what reaches history. */
export function withoutSecret(err: unknown, secret: string | undefined): unknown {
  if (!secret || !(err instanceof Error)) return err;
  const hide = (text: string) => text.split(secret).join('[API key]');
  err.message = hide(err.message);
  if (err.stack) err.stack = hide(err.stack);
  return err;
}
