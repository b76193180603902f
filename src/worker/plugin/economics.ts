/**
 * What the plugin gives the shared economics: a check of the worker's prices before anything
 * connects, and the client the activities reach spend ledgers and shared breakers with.
 */
import { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import { type PriceTable, priceTableProblems } from '../../common/economics/prices';
import { TeamValidationError } from '../../common/errors';
import type { TeamSpec } from '../../common/team';

/** Worker prices that are not a price table, or in another currency than the team's, fail here. */
export function checkPrices(spec: TeamSpec, prices: PriceTable | undefined): void {
  if (prices === undefined) return;
  const own = priceTableProblems(prices, 'createWorker prices');
  if (own.length > 0) throw new TeamValidationError(own);
  // `spec` was built with these prices over the team's.
  const merged = priceTableProblems(spec.economics?.prices ?? {}, 'prices');
  if (merged.length > 0) throw new TeamValidationError(merged);
}

/** A client on the worker's connection, made when first used; none for a worker without a connection (a replay). */
export function sharedEconomicsClient(
  connection: NativeConnection | undefined,
  namespace: string,
  dataConverter: DataConverter | undefined,
): (() => Client) | undefined {
  if (!connection) return undefined;
  let client: Client | undefined;
  return () => (client ??= new Client({ connection, namespace, ...(dataConverter ? { dataConverter } : {}) }));
}
