/** What the evaluation views read from the service (the fields they use). */

/** How a chain ended. */
export interface Outcome {
  status: string;
  error?: string;
}

/** An eval as `GET /v1/evals/{id}` answers. */
export interface EvalView {
  status: string;
  progress: { done: number; total: number };
  report?: {
    summary: {
      team: { id: string };
      cases: number;
      routeAgreement: { ratio?: number };
      outcomeAgreement: { ratio?: number };
      passed: { ratio?: number };
      modelCalls: number;
      reused: number;
      threshold: { breached: string[]; rules: { metric: string; op: string; value: number }[] };
    };
    cases: {
      id: string;
      verdict: string;
      source: { kind: string; workflowId?: string };
      recorded?: { route: string[]; outcome: Outcome };
      candidate: {
        workflowId?: string;
        route: string[];
        outcome: Outcome;
        usage: { modelCalls: number };
        reused: number;
      };
      outcomeAgrees?: boolean;
      firstDifference?: { step: number; agent: string; why: string[] };
      error?: string;
    }[];
  };
}

/** A significance test's result. */
export interface TestView {
  test: string;
  p: number;
  significant: boolean;
  minP?: number;
}

/** An experiment as `GET /v1/experiments/{id}` answers. */
export interface ExperimentView {
  experiment: {
    status: string;
    winner?: string;
    startedAt: string;
    definition: { key?: string; variants: { name: string }[] };
  };
  variants: {
    variant: string;
    chains: number;
    running: number;
    completed: number;
    failed: number;
    successRate?: number;
    handoffs: { mean?: number };
    approvals: { asked: number; rejected: number };
    guardrailTrips: { total: number };
    tokens: { mean?: number };
    cost?: number;
    latencyMs: { p50?: number; p95?: number };
  }[];
  comparisons: ({ variant: string } & Partial<
    Record<'successRate' | 'approvalRejections' | 'guardrailTrips' | 'latency' | 'tokens' | 'handoffs', TestView>
  >)[];
}
