import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A CLI mistake: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parse a command's arguments; unknown options and missing values become {@link UsageError}s. */
export function parse<O extends Options>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** A non-negative integer option. */
export function intOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a whole number >= 0, got "${value}"`);
  return n;
}
