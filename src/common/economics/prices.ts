/**
 * Prices of model calls and what calls cost: price tables per million tokens, the default table,
 * and exact cost arithmetic in integer millionths of the currency ("micros"), so a chain, its
 * replay, its audit and the metrics all arrive at the same figure from the same recorded usage.
 *
 * Workflow-safe: no I/O.
 */
import { isRecord, shown } from '../check';
import type { ModelPrice, ModelSpec } from '../model';

export type { ModelPrice } from '../model';

/**
 * Prices by model name (`gpt-4o-mini`) or by provider and model (`openai/gpt-4o-mini`, which wins).
 * A model without a price is priced as unknown, never as free.
 */
export type PriceTable = Record<string, ModelPrice>;

/** What model calls cost. */
export interface Cost {
  /** ISO 4217 code of the prices, e.g. `USD`. */
  currency: string;
  /** What the priced calls cost, in millionths of the currency (an exact integer: 1250 is 0.00125). */
  micros: number;
  /** Model calls whose model had no price: when above 0 the cost is unknown, at least `micros`. */
  unpricedCalls: number;
}

/** The currency of prices that name none. */
export const DEFAULT_CURRENCY = 'USD';

/** Tokens of one model call as its provider reported them. */
export interface CallTokens {
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, those served from the provider's prompt cache. */
  cachedInputTokens?: number;
}

/**
 * OpenAI's list prices in USD per million tokens, as published in August 2025. Prices change:
 * give your own in `new Team(agents, { prices })` or `createWorker({ prices })`, which win.
 */
export const DEFAULT_PRICES: Readonly<PriceTable> = {
  'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
  'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
  'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  o3: { input: 2, cachedInput: 0.5, output: 8 },
  'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
};

/** The largest price per million tokens baton takes: beyond it a price is a mistake. */
const MAX_PRICE = 100_000;

/** Millionths in one unit of a currency. */
export const MICROS = 1_000_000;

/** An amount of the currency in micros (rounded to the nearest millionth). */
export function toMicros(amount: number): number {
  return Math.round(amount * MICROS);
}

/** Micros as an amount of the currency. */
export function fromMicros(micros: number): number {
  return micros / MICROS;
}

/** The price of `model` in `table`: by `provider/model`, then by model name. */
export function priceOf(
  table: PriceTable | undefined,
  model: Pick<ModelSpec, 'provider' | 'model'>,
): ModelPrice | undefined {
  if (!table) return undefined;
  return table[`${model.provider}/${model.model}`] ?? table[model.model];
}

/** No calls yet, in `currency`. */
export function noCost(currency = DEFAULT_CURRENCY): Cost {
  return { currency, micros: 0, unpricedCalls: 0 };
}

/**
 * What one call costs: uncached input, cached input and output tokens each at their price per
 * million, summed, then rounded half up to a whole micro once per call. Without a price the call
 * counts as unpriced.
 */
export function callCost(price: ModelPrice | undefined, tokens: CallTokens, currency = DEFAULT_CURRENCY): Cost {
  if (!price) return { currency, micros: 0, unpricedCalls: 1 };
  const cached = Math.min(Math.max(0, tokens.cachedInputTokens ?? 0), tokens.inputTokens);
  const parts: [number, number][] = [
    [tokens.inputTokens - cached, price.input],
    [cached, price.cachedInput ?? price.input],
    [tokens.outputTokens, price.output],
  ];
  // Prices are whole micros per million tokens: tokens × price / 1e6, kept exact in safe integers.
  let whole = 0;
  let fraction = 0;
  for (const [n, p] of parts) {
    const perMillion = toMicros(p);
    whole += n * Math.floor(perMillion / MICROS);
    fraction += n * (perMillion % MICROS);
  }
  return {
    currency: price.currency ?? currency,
    micros: whole + Math.floor((fraction + MICROS / 2) / MICROS),
    unpricedCalls: 0,
  };
}

/**
 * `a` and `b` together. A cost in another currency cannot be added: its calls count as unpriced
 * (`calls` of them when known, else one), so the sum says it is unknown rather than being wrong.
 */
export function addCost(a: Cost | undefined, b: Cost | undefined, calls = 1): Cost | undefined {
  if (!a) return b && { ...b };
  if (!b) return { ...a };
  if (a.currency !== b.currency) return { ...a, unpricedCalls: a.unpricedCalls + Math.max(1, calls, b.unpricedCalls) };
  return { currency: a.currency, micros: a.micros + b.micros, unpricedCalls: a.unpricedCalls + b.unpricedCalls };
}

/** The cost as an amount of its currency, or `null` when some calls had no price (the cost is unknown). */
export function costAmount(cost: Cost | undefined): number | null {
  return cost && cost.unpricedCalls === 0 ? fromMicros(cost.micros) : null;
}

/** `0.001250 USD`, or `unknown (2 calls unpriced; at least 0.001250 USD)`. */
export function formatCost(cost: Cost): string {
  const amount = `${fromMicros(cost.micros).toFixed(6)} ${cost.currency}`;
  if (cost.unpricedCalls === 0) return amount;
  const calls = `${cost.unpricedCalls} call${cost.unpricedCalls === 1 ? '' : 's'} unpriced`;
  return cost.micros > 0 ? `unknown (${calls}; at least ${amount})` : `unknown (${calls})`;
}

/** Problems with a price table, each naming the field and what would be valid. */
export function priceTableProblems(table: unknown, key = 'prices'): string[] {
  if (!isRecord(table))
    return [
      `"${key}" must be an object of prices by model, e.g. {"gpt-4o-mini": {"input": 0.15, "output": 0.6}}, got ${shown(table)}`,
    ];
  const problems: string[] = [];
  const currencies = new Set<string>();
  for (const [model, price] of Object.entries(table)) {
    const at = `${key}.${model.length > 64 ? `${model.slice(0, 61)}...` : model}`;
    if (model === '') problems.push(`"${key}" has a price for an empty model name`);
    if (!isRecord(price)) {
      problems.push(`"${at}" must be {input, output, cachedInput?, currency?} per million tokens, got ${shown(price)}`);
      continue;
    }
    for (const field of ['input', 'output', 'cachedInput'] as const) {
      const v = price[field];
      if (v === undefined && field === 'cachedInput') continue;
      if (
        typeof v !== 'number' ||
        !Number.isFinite(v) ||
        v < 0 ||
        v > MAX_PRICE ||
        Math.abs(toMicros(v) - v * MICROS) > 1e-3
      ) {
        problems.push(
          `"${at}.${field}" must be a price per million tokens from 0 to ${MAX_PRICE} with at most 6 decimals, got ${shown(v)}`,
        );
      }
    }
    const currency = price.currency ?? DEFAULT_CURRENCY;
    if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
      problems.push(`"${at}.currency" must be an ISO 4217 code such as "USD", got ${shown(price.currency)}`);
    else currencies.add(currency);
    const extra = Object.keys(price).filter((k) => !['input', 'output', 'cachedInput', 'currency'].includes(k));
    if (extra.length > 0)
      problems.push(
        `"${at}" has unknown field(s) ${extra.map((k) => `"${k}"`).join(', ')} (valid: input, cachedInput, output, currency)`,
      );
  }
  if (currencies.size > 1)
    problems.push(
      `"${key}" mixes currencies (${[...currencies].join(', ')}): one table prices in one currency, so costs add up`,
    );
  return problems;
}

/** The one currency of a price table. */
export function currencyOf(table: PriceTable | undefined): string {
  const first = table ? Object.values(table)[0] : undefined;
  return first?.currency ?? DEFAULT_CURRENCY;
}
