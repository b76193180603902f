/**
 * An in-memory order system standing in for the shop's real one. Each worker process starts from
 * this catalogue; the money paid back is in the refund ledger (`ledger.ts`), which survives it.
 */

/** An order of the shop. */
export interface Order {
  orderId: string;
  customer: string;
  item: string;
  amount: number;
  status: 'delivered' | 'shipped' | 'refunded';
}

/** The shop's orders by id. */
export const orders = new Map<string, Order>([
  ['1042', { orderId: '1042', customer: 'Ada', item: 'Ceramic teapot', amount: 59.9, status: 'delivered' }],
  ['1043', { orderId: '1043', customer: 'Lin', item: 'Espresso cups (4)', amount: 24.5, status: 'shipped' }],
  ['1077', { orderId: '1077', customer: 'Grace', item: 'Espresso machine', amount: 249, status: 'delivered' }],
]);
