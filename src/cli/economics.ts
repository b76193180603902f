/** `baton breakers` and `baton spend`: what chains share, from the command line. */
import { Baton } from '../client/baton';
import type { SharedBreakerState } from '../client/economics';
import { formatCost } from '../common/economics/prices';
import type { LedgerView } from '../common/economics/messages';
import { parse, UsageError } from './args';
import { connect } from './connect';
import type { Command } from './context';

/** `baton breakers [--json]`, `baton breakers reset <scope> <target> --as <who> [--reason <text>]`. */
export const breakersCommand: Command = {
  synopsis: 'baton breakers [--json]\nbaton breakers reset <scope> <target> --as <who> [--reason <text>]',
  summary: 'the circuit breakers chains share, and resetting one',
  help: `Lists the shared circuit breakers running (teams with \`sharedBreakers\`): scope, target agent,
state (closed, open until a time, half open with the chain making its trial), failures since the last
success, the last failure, and who reset it last. "reset" closes a breaker at once; who reset it and
why are recorded in the breaker (and shown here).

Options:
  --json             print the list (or the reset breaker) as JSON
  --as <who>         reset: who resets the breaker (required)
  --reason <text>    reset: why, kept with the reset`,
  async run(argv, { out }) {
    const { values, positionals } = parse(argv, {
      json: { type: 'boolean', default: false },
      as: { type: 'string' },
      reason: { type: 'string' },
    });
    const [sub, scope, target, ...rest] = positionals;
    const baton = await batonClient();
    if (sub === undefined) {
      if (values.as !== undefined || values.reason !== undefined)
        throw new UsageError('--as and --reason go with "reset"');
      const breakers = await baton.economics.breakers();
      if (values.json) out(JSON.stringify(breakers, null, 2));
      else if (breakers.length === 0) out('no shared circuit breaker is running');
      else for (const b of breakers) out(formatBreaker(b));
      return 0;
    }
    if (sub !== 'reset') throw new UsageError(`unknown subcommand "${sub}" (valid: reset)`);
    if (!scope || !target || rest.length > 0)
      throw new UsageError('reset takes <scope> <target>, as `baton breakers` lists them');
    if (!values.as || values.as.trim() === '') throw new UsageError('--as must name who resets the breaker');
    const reset = await baton.economics.resetBreaker(scope, target, {
      by: values.as,
      ...(values.reason ? { reason: values.reason } : {}),
    });
    out(values.json ? JSON.stringify(reset, null, 2) : `reset by ${values.as}: ${formatBreaker(reset)}`);
    return 0;
  },
};

/** `baton spend [--json]`. */
export const spendCommand: Command = {
  synopsis: 'baton spend [--json]',
  summary: 'what each key spent of its spend limits in the windows open now',
  help: `Lists the spend ledgers running (teams with \`spendLimits\`): limit, key, window, what was spent of
the limit, what calls in flight hold, and how many calls were granted and refused.

Options:
  --json    print the list as JSON (amounts in micros: millionths of the currency)`,
  async run(argv, { out }) {
    const { values, positionals } = parse(argv, { json: { type: 'boolean', default: false } });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const ledgers = await (await batonClient()).economics.spendLedgers();
    if (values.json) out(JSON.stringify(ledgers, null, 2));
    else if (ledgers.length === 0) out('no spend ledger is running');
    else for (const l of ledgers) out(formatLedger(l));
    return 0;
  },
};

/** One breaker on a line (and its last failure and reset below). */
export function formatBreaker(b: SharedBreakerState): string {
  const state =
    b.state === 'open'
      ? `open until ${b.until ?? '?'}`
      : b.state === 'half_open'
        ? `half open (trial: ${b.trial?.chain ?? '?'} until ${b.trial?.until ?? '?'})`
        : 'closed';
  const lines = [`${b.scope}  ${b.target}  ${state}  ${b.failures} failure${b.failures === 1 ? '' : 's'}`];
  if (b.lastFailure)
    lines.push(`    last failure ${b.lastFailure.at} in ${b.lastFailure.chain}: ${b.lastFailure.reason}`);
  const reset = b.resets.at(-1);
  if (reset) lines.push(`    reset ${reset.at} by ${reset.by}${reset.reason ? `: ${reset.reason}` : ''}`);
  return lines.join('\n');
}

/** One ledger on a line. */
export function formatLedger(l: LedgerView): string {
  const money = (micros: number) => formatCost({ currency: l.currency, micros, unpricedCalls: 0 });
  return `${l.name}  ${l.key}  ${l.window} from ${l.windowStart}  spent ${money(l.spentMicros)} of ${money(l.limitMicros)}  in flight ${money(l.reservedMicros)}  granted ${l.granted}  refused ${l.refused}`;
}

async function batonClient(): Promise<Baton> {
  const { client } = await connect();
  return new Baton({ client });
}
