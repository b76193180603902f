import { parseArgs, type ParseArgsConfig } from 'node:util';
import { MAX_COUNT } from '../common/check';
import { RUN_OPTIONS, type RunOptions } from '../common/options';

/** A command-line mistake: printed with the command's synopsis, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** What {@link parse} returns for options `O`. */
export type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>;

/** Parse a command's arguments; unknown options and missing values become {@link UsageError}s. */
export function parse<O extends Options>(argv: string[], options: O): Parsed<O> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Digits only: `Number()` would also take `""` (as 0), `1e3`, `0x10` and ` 7 `. */
const DIGITS = /^[0-9]+$/;

/** A whole-number option written in digits, from `min` to `max`; `undefined` when not given. */
export function integerOption(flag: string, raw: string | undefined, min: number, max = MAX_COUNT): number | undefined {
  if (raw === undefined) return undefined;
  const n = DIGITS.test(raw) ? Number(raw) : NaN;
  if (Number.isSafeInteger(n) && n >= min && n <= max) return n;
  throw new UsageError(
    `--${flag} must be a whole number from ${min} to ${max}, written in digits; got ${JSON.stringify(raw)}`,
  );
}

/**
 * An amount of money given on the command line (`--max-cost 0.25`: digits, at most six decimals),
 * checked by the option's own rule in {@link RUN_OPTIONS}.
 */
export function runOptionAmount(flag: string, key: 'maxCost', raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = /^[0-9]+(\.[0-9]{1,6})?$/.test(raw) ? Number(raw) : NaN;
  if (RUN_OPTIONS[key].check(n, key).length === 0) return n;
  throw new UsageError(
    `--${flag} must be an amount from 0 to 1000000000 with at most six decimals, such as 0.25; got ${JSON.stringify(raw)}`,
  );
}

type NumericRunOption = {
  [K in keyof RunOptions]-?: NonNullable<RunOptions[K]> extends number ? K : never;
}[keyof RunOptions];

/**
 * A numeric run option given on the command line (`--max-handoffs 3`), checked by the option's own
 * rule in {@link RUN_OPTIONS} so the CLI and the library accept the same range.
 */
export function runOptionNumber(flag: string, key: NumericRunOption, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = DIGITS.test(raw) ? Number(raw) : NaN;
  const [problem] = RUN_OPTIONS[key].check(n, key);
  if (problem === undefined) return n;
  // The check names the option by its key and shows the parsed value; the user typed a flag and a string.
  const rule = problem.replace(`"${key}"`, `--${flag}`).replace(/, got .*$/, '');
  throw new UsageError(`${rule}, written in digits; got ${JSON.stringify(raw)}`);
}
