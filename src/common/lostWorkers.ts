/**
 * Calls started again after their worker was lost: the retry-policy name of the timeout that marks
 * a lost worker, and what a call started again is told. Shared by the workflow (which starts the
 * call again), the activities (which pick up its heartbeat details) and the audit (which shows it).
 *
 * Workflow-safe: no I/O.
 */

/**
 * The failure type that stops Temporal from retrying an attempt whose heartbeats stopped (the
 * server's `TemporalTimeout:` convention for timeouts in `nonRetryableErrorTypes`): a lost worker
 * then ends that start of the call, and the workflow starts the call again without spending one of
 * its attempts.
 */
export const HEARTBEAT_TIMEOUT_FAILURE_TYPE = 'TemporalTimeout:Heartbeat';

/** What a model or tool call started again after a lost worker carries in its input. */
export interface LostWorkerRestart {
  /** How many times the call has been started again after a lost worker: 1 the first time. */
  restarts: number;
  /**
   * The details of the last heartbeat the call sent before its worker was lost, which the new start
   * reads as a retried attempt reads `heartbeatDetails`.
   */
  heartbeat?: unknown;
}
