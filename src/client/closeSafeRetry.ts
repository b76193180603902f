/**
 * Temporal's client retry (its default backoff and which statuses it retries), safe to close under
 * and whatever an attempt delivered. The client retries a call that failed UNAVAILABLE (a server
 * restarting, a connection dropped) on a timer; a retry that fires after the connection was closed
 * threw "Channel has been shut down" out of that timer, and Temporal's own interceptor then threw
 * `savedMessageNext is not a function` out of a later tick when its first attempt had delivered no
 * message: uncaught exceptions that end the process. Here such a retry ends the call with
 * CANCELLED, which its caller gets as the call's error, and the last attempt's message (if any)
 * reaches the caller before its status.
 */
import {
  InterceptingCall,
  type Interceptor,
  ListenerBuilder,
  Metadata,
  RequesterBuilder,
  status,
  type StatusObject,
} from '@grpc/grpc-js';
import { defaultGrpcRetryOptions } from '@temporalio/client';

/** The client's default retry, whose retries end the call once the connection is closed. */
export function closeSafeRetryInterceptor(): Interceptor {
  const { retryableDecider, delayFunction } = defaultGrpcRetryOptions();
  return (options, nextCall) => {
    let request: unknown;
    const requester = new RequesterBuilder()
      .withStart((metadata, downstream, next) => {
        let attempt = 1;
        // The message of the attempt under way, held until its status says whether it counts.
        let reply: { message: unknown } | undefined;
        const end = (s: StatusObject) => {
          if (retryableDecider(attempt, s)) {
            setTimeout(retry, delayFunction(attempt, s));
            return;
          }
          if (reply) downstream.onReceiveMessage(reply.message);
          downstream.onReceiveStatus(s);
        };
        const retry = () => {
          attempt++;
          reply = undefined;
          let call: ReturnType<typeof nextCall>;
          try {
            call = nextCall(options);
          } catch (err) {
            const details = `the connection was closed before the call was retried: ${(err as Error).message}`;
            return downstream.onReceiveStatus({ code: status.CANCELLED, details, metadata: new Metadata() });
          }
          call.start(metadata, { onReceiveMessage: (message) => (reply = { message }), onReceiveStatus: end });
          call.sendMessage(request);
          call.halfClose();
        };
        const first = new ListenerBuilder()
          .withOnReceiveMessage((message) => (reply = { message }))
          .withOnReceiveStatus((s) => end(s))
          .build();
        next(metadata, first);
      })
      .withSendMessage((message, next) => {
        request = message;
        next(message);
      })
      .build();
    return new InterceptingCall(nextCall(options), requester);
  };
}
