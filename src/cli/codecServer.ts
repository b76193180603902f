import fs from 'node:fs';
import { CODEC_ENV, codecOptionsFromEnv } from '../payloads/keys';
import { batonPayloadCodecs } from '../payloads/codec';
import { DEV_UI_ORIGINS, startCodecServer } from '../payloads/codecServer';
import { integerOption, parse, UsageError } from './args';
import type { Command } from './context';

/** The environment variable with the codec server's bearer tokens (comma-separated). */
export const CODEC_TOKENS_ENV = 'BATON_CODEC_TOKENS';

/** `baton codec-server`: the Temporal UI's codec endpoint, decrypting with the configured keys. */
export const codecServerCommand: Command = {
  synopsis: 'baton codec-server [--port 8081] [--host 127.0.0.1] [--origin <url>]... [--token-file <file>]',
  summary: "serve the Temporal UI's codec endpoint, so it shows decrypted payloads to holders of a token",
  help: `Options:
  --port <n>            port to listen on (default 8081)
  --host <addr>         address to listen on (default 127.0.0.1)
  --origin <url>        a browser origin allowed to call, the Temporal UI's (repeatable;
                        default ${DEV_UI_ORIGINS.join(' and ')})
  --token-file <file>   bearer tokens, one a line (instead of ${CODEC_TOKENS_ENV})

Environment: ${CODEC_ENV.KEYS} or ${CODEC_ENV.KEY_FILE} (the keys the workers use;
<id>:<base64 32 bytes>, the first encrypts, all decrypt), ${CODEC_ENV.COMPRESS}, and
${CODEC_TOKENS_ENV} (comma-separated tokens that may call). A token is required.

POST …/encode and …/decode take {"payloads": [...]} in Temporal's JSON. Use it from the UI with
\`temporal server start-dev --ui-codec-endpoint http://127.0.0.1:8081\` (sign in at the server's own
page once, and turn on "Include cross-origin credentials" in the UI's codec settings), or from the
Temporal CLI: \`temporal workflow show -w <id> --codec-endpoint http://127.0.0.1:8081 --codec-auth "Bearer <token>"\`.`,
  async run(argv, { out, err, interrupted }) {
    const { values, positionals } = parse(argv, {
      port: { type: 'string', default: '8081' },
      host: { type: 'string', default: '127.0.0.1' },
      origin: { type: 'string', multiple: true },
      'token-file': { type: 'string' },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const port = integerOption('port', values.port, 0, 65_535)!;
    const tokens = readTokens(values['token-file']);
    const codec = codecOptionsFromEnv();
    if (!codec.encryptionKeys)
      err(`warning: no ${CODEC_ENV.KEYS} or ${CODEC_ENV.KEY_FILE}: the server only undoes compression`);
    const server = await startCodecServer({
      codecs: batonPayloadCodecs(codec),
      tokens,
      origins: values.origin ?? DEV_UI_ORIGINS,
      port,
      host: values.host,
    });
    const keys = codec.encryptionKeys?.map((k) => k.id).join(', ') ?? 'none';
    out(`baton codec-server: ${server.url} (keys ${keys}; origins ${(values.origin ?? DEV_UI_ORIGINS).join(', ')})`);
    const signal = await interrupted;
    err(`baton codec-server: ${signal}: stopping`);
    await server.close();
    return 0;
  },
};

function readTokens(file: string | undefined): string[] {
  let text: string;
  if (file) {
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      throw new UsageError(
        `cannot read --token-file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  } else {
    text = process.env[CODEC_TOKENS_ENV] ?? '';
  }
  const tokens = text
    .split(/[,\n]/)
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (tokens.length === 0)
    throw new UsageError(`the codec server needs a token: set ${CODEC_TOKENS_ENV} or pass --token-file`);
  return tokens;
}
