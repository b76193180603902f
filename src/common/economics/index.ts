/** Economics: prices and costs, budgets in money, spend limits and circuit breakers shared across runs. Workflow-safe. */
export * from './prices';
export * from './spec';
export * from './messages';
export * from './errors';
export * from './chain';
