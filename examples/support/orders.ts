/**
 * An in-memory order system standing in for the shop's real one: a catalogue no process changes.
 * The money paid back is in the refund ledger (`ledger.ts`), which every process reads: an order
 * is refunded when the ledger holds a refund of it issued since this module was loaded, so each
 * process (a worker, the order server) starts from the catalogue and sees every refund issued since.
 */
import { RefundLedger } from './ledger';

const loadedAt = new Date().toISOString();

/** An order of the shop. */
export interface Order {
  orderId: string;
  customer: string;
  item: string;
  amount: number;
  status: 'delivered' | 'shipped' | 'refunded';
}

/** The shop's orders by id. */
export const orders: ReadonlyMap<string, Readonly<Order>> = new Map<string, Order>([
  ['1042', { orderId: '1042', customer: 'Ada', item: 'Ceramic teapot', amount: 59.9, status: 'delivered' }],
  ['1043', { orderId: '1043', customer: 'Lin', item: 'Espresso cups (4)', amount: 24.5, status: 'shipped' }],
  ['1077', { orderId: '1077', customer: 'Grace', item: 'Espresso machine', amount: 249, status: 'delivered' }],
]);

/** An order as the shop sees it now: refunded when `ledger` has a refund of it since this module was loaded. */
export function currentOrder(orderId: string, ledger = new RefundLedger()): Order | undefined {
  const order = orders.get(orderId);
  if (!order) return undefined;
  const refunded = ledger.list().some((r) => r.orderId === orderId && r.issuedAt >= loadedAt);
  return refunded ? { ...order, status: 'refunded' } : { ...order };
}
