/**
 * The process behind {@link CliSession} (cliSession.ts): it loads the `baton` command as
 * bin/baton.js does in this checkout (the sources through tsx, started with `-r tsx/cjs` and
 * `TSX_TSCONFIG_PATH`), then runs the commands it is sent one after another, each with the
 * environment it was sent, what it writes to stdout and stderr captured, and its exit code
 * (`main`'s, as bin/baton.js exits with it).
 */
import { main } from '../../src/cli/main';

/** A command to run. */
export interface HostRequest {
  id: number;
  argv: string[];
  /** The whole environment of the command. */
  env: Record<string, string>;
}

/** What the command did. */
export interface HostReply {
  id: number;
  code: number;
  stdout: string;
  stderr: string;
}

type Stream = 'stdout' | 'stderr';

/** Send everything written to `stream` to `into` instead, until the returned function is called. */
function capture(stream: Stream, into: Record<Stream, string>): () => void {
  const target = process[stream];
  const write = target.write;
  target.write = ((
    chunk: string | Uint8Array,
    encoding?: BufferEncoding | ((err?: Error | null) => void),
    callback?: (err?: Error | null) => void,
  ) => {
    into[stream] +=
      typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(typeof encoding === 'string' ? encoding : 'utf8');
    (typeof encoding === 'function' ? encoding : callback)?.();
    return true;
  }) as typeof target.write;
  return () => {
    target.write = write;
  };
}

async function serve({ id, argv, env }: HostRequest): Promise<HostReply> {
  for (const key of Object.keys(process.env)) if (!Object.hasOwn(env, key)) delete process.env[key];
  Object.assign(process.env, env);
  const output: Record<Stream, string> = { stdout: '', stderr: '' };
  const restore = [capture('stdout', output), capture('stderr', output)];
  let code: number;
  try {
    code = await main(argv);
  } catch (err) {
    // As bin/baton.js reports a failure main did not turn into an exit code.
    console.error(err);
    code = 1;
  } finally {
    for (const r of restore) r();
  }
  return { id, code, ...output };
}

let queue = Promise.resolve();
process.on('message', (request: HostRequest) => {
  queue = queue.then(async () => {
    process.send!(await serve(request));
  });
});
