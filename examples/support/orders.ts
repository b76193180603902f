/** An in-memory order system standing in for the shop's real one. */
export interface Order {
  orderId: string;
  customer: string;
  item: string;
  amount: number;
  status: 'delivered' | 'shipped' | 'refunded';
}

export const orders = new Map<string, Order>([
  ['1042', { orderId: '1042', customer: 'Ada', item: 'Ceramic teapot', amount: 59.9, status: 'delivered' }],
  ['1043', { orderId: '1043', customer: 'Lin', item: 'Espresso cups (4)', amount: 24.5, status: 'shipped' }],
]);

/** Refunds by idempotency key: a retried `issueRefund` returns the first refund instead of paying twice. */
export const refunds = new Map<string, { refundId: string; orderId: string; amount: number }>();
