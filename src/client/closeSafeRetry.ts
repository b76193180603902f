/**
 * Temporal's client retry, safe to close under: the client retries a call that failed UNAVAILABLE
 * (a server restarting, a connection dropped) on a timer, and a retry that fires after the
 * connection was closed threw "Channel has been shut down" out of that timer, an uncaught
 * exception that ended the process. Here such a retry ends the call with CANCELLED instead, which
 * its caller gets as the call's error.
 */
import { type Interceptor, Metadata, type NextCall, status } from '@grpc/grpc-js';
import { defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';

/** A call that never reached a channel: it ends at once with CANCELLED and why. */
function endedCall(details: string): ReturnType<NextCall> {
  return {
    start(_metadata, listener) {
      process.nextTick(() =>
        listener?.onReceiveStatus?.({ code: status.CANCELLED, details, metadata: new Metadata() }),
      );
    },
    sendMessageWithContext() {},
    sendMessage() {},
    startRead() {},
    halfClose() {},
    cancelWithStatus() {},
    getPeer: () => '',
    getAuthContext: () => null,
  };
}

/** The client's default retry interceptor, whose retries end the call once the connection is closed. */
export function closeSafeRetryInterceptor(): Interceptor {
  const retry = makeGrpcRetryInterceptor(defaultGrpcRetryOptions());
  return (options, nextCall) =>
    retry(options, (callOptions) => {
      try {
        return nextCall(callOptions);
      } catch (err) {
        return endedCall(`the connection was closed before the call was retried: ${(err as Error).message}`);
      }
    });
}
