/**
 * Calls to Temporal cancelled by a long-lived signal without the signal keeping them. Temporal's
 * client (`Connection.withAbortSignal`) adds a listener to the signal for each call it makes and
 * never removes it: a stream that long-polls history, or re-reads its approvals on every change,
 * under the one signal of its lifetime would keep every call it made (and warn past ten). Here the
 * calls listen on a signal of their own, which follows `signal` and is dropped with them.
 */
import { setMaxListeners } from 'node:events';
import { Metadata, status } from '@grpc/grpc-js';
import type { ConnectionLike } from '@temporalio/client';

/**
 * `fn`, whose calls through `connection` are cancelled when `signal` aborts. When it has aborted
 * already, `fn` is not run (a call started under an aborted signal would not be cancelled): the
 * result is the error of a cancelled call (`isGrpcCancelledError`).
 */
export async function withCallsAborted<R>(
  connection: Pick<ConnectionLike, 'withAbortSignal'>,
  signal: AbortSignal,
  fn: () => Promise<R>,
): Promise<R> {
  if (signal.aborted) throw notMade();
  const own = new AbortController();
  // The calls of one `fn` (a page of history, a list) listen on it together.
  setMaxListeners(0, own.signal);
  const abort = () => own.abort(signal.reason);
  signal.addEventListener('abort', abort, { once: true });
  try {
    return await connection.withAbortSignal(own.signal, fn);
  } finally {
    signal.removeEventListener('abort', abort);
  }
}

/** The error of a call that was cancelled before it was made, as gRPC reports a cancelled call. */
function notMade(): Error {
  const details = 'the call was not made: its signal had aborted';
  return Object.assign(new Error(`${status.CANCELLED} CANCELLED: ${details}`), {
    code: status.CANCELLED,
    details,
    metadata: new Metadata(),
  });
}
