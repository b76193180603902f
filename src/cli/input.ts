import fs from 'node:fs';
import type { RunOptions } from '../common/options';
import { UsageError } from './args';
import { interruptible } from './context';

/**
 * Temporal's default blob size limit (`limit.blobSize.error`): the server refuses a workflow input
 * payload over 2 MB, so a larger input could not start a chain.
 */
export const PAYLOAD_LIMIT_BYTES = 2 * 1024 * 1024;

/** Where `baton run` takes its input from: the `<input>` argument (`-` for stdin) or `--input-file` (`-` for stdin). */
export interface InputSource {
  arg?: string;
  file?: string;
}

/** Read the chain's input; refuses a missing, doubled, empty or oversized input before anything starts. */
export async function readInput(
  source: InputSource,
  interrupted: Promise<NodeJS.Signals>,
  notice: (line: string) => void,
): Promise<string> {
  if (source.arg !== undefined && source.file !== undefined) {
    throw new UsageError('give the input once: as <input>, as - (stdin) or with --input-file <path>, not two of them');
  }
  const from = source.file ?? source.arg;
  if (from === undefined)
    throw new UsageError('expected <input> after <agent>: quote it, pass - to read stdin, or use --input-file <path>');
  let input: string;
  let where: string;
  if (from === '-') {
    if (process.stdin.isTTY) notice('reading the input from stdin; end it with Ctrl-D');
    input = await interruptible(readStdin(), interrupted);
    where = 'stdin';
  } else if (source.file !== undefined) {
    input = readFile(source.file);
    where = `the input file ${source.file}`;
  } else {
    input = from;
    where = 'the input';
  }
  if (input.trim() === '') {
    throw new UsageError(
      `${where} is empty: a chain needs a request to work on (quote it as <input>, pass - to read stdin, or use --input-file <path>)`,
    );
  }
  return input;
}

/** Refuse a workflow input whose JSON is over Temporal's payload limit, naming the limit. */
export function checkPayloadSize(args: { agent: string; input: string; options?: RunOptions }): void {
  const bytes = Buffer.byteLength(JSON.stringify(args), 'utf8');
  if (bytes > PAYLOAD_LIMIT_BYTES) throw tooLarge(`the input is ${megabytes(bytes)} as workflow input JSON`);
}

function tooLarge(what: string): UsageError {
  return new UsageError(
    `${what}; Temporal refuses a workflow input over ${megabytes(PAYLOAD_LIMIT_BYTES)} ` +
      `(${PAYLOAD_LIMIT_BYTES} bytes, its default blob size limit per payload), so the chain could not start. ` +
      'Pass a reference instead (a path, URL or id that a tool of the agent reads).',
  );
}

function megabytes(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(bytes % 2 ** 20 === 0 ? 0 : 2)} MB`;
}

function readFile(file: string): string {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (err) {
    throw new UsageError(
      `cannot read the input file ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`,
    );
  }
  // JSON escaping never shrinks text, so a file over the limit cannot fit: refuse it without reading it.
  if (size > PAYLOAD_LIMIT_BYTES) throw tooLarge(`the input file ${file} is ${megabytes(size)}`);
  return fs.readFileSync(file, 'utf8');
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > PAYLOAD_LIMIT_BYTES) {
      process.stdin.destroy();
      throw tooLarge(`the input on stdin is more than ${megabytes(PAYLOAD_LIMIT_BYTES)}`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
