import { inProcessStreams } from './memory';
import { RedisStreams } from './redis';
import type { StreamTransport } from './types';

/**
 * The environment variable naming the broker workers and callers share: `redis://host:port`
 * (`rediss://` for TLS, `redis://user:password@host:port` for an ACL user), or a Redis Cluster as
 * some of its nodes' URLs separated by commas.
 */
export const STREAMS_ENV = 'BATON_STREAMS_URL';

const byUrl = new Map<string, RedisStreams>();

/**
 * The transport the environment names: Redis Streams at `BATON_STREAMS_URL` (one per URL in a
 * process, until it is closed: the next call then opens another; a Redis Cluster when it lists
 * several nodes), else this process's in-process
 * transport. Workers and callers in separate processes must both be given the same
 * `BATON_STREAMS_URL` to see text as it forms.
 */
export function streamsFromEnv(env: NodeJS.ProcessEnv = process.env): StreamTransport {
  const url = env[STREAMS_ENV]?.trim();
  if (!url) return inProcessStreams();
  let streams = byUrl.get(url);
  const nodes = url
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  if (!streams || streams.closed)
    byUrl.set(url, (streams = new RedisStreams(nodes.length > 1 ? { clusterNodes: nodes } : { url })));
  return streams;
}
