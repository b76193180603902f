/**
 * baton's signals, taken without the SDK's per-signal promises. The SDK runs every signal through
 * an async handler chain (`handleSignal`, then `.catch` and `.finally`): half a dozen promises a
 * signal, each of which its promise hook gives a captured, source-mapped stack. baton's signal
 * handlers only queue what arrives, synchronously, so this outermost inbound interceptor calls
 * them directly and answers with an already settled thenable: a backlog of thousands of signals
 * in one activation costs what queueing them costs, far inside the deadlock timeout, instead of
 * seconds of promise bookkeeping. Signals of other names, and baton's in a bundle without this
 * module, take the SDK's own path.
 *
 * Bundled as a workflow interceptor module (`src/worker/bundle.ts`, the plugin, the package build),
 * first, so it is the outermost: interceptors after it do not see baton's signals.
 */
import type { SignalInput, WorkflowInboundCallsInterceptor, WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { mergeUpserts } from './searchAttributes';

type Handler = (arg: unknown) => void;

/** Where a run keeps its quick handlers: a global of its own (the SDK gives each workflow its own globals). */
const HANDLERS = '__batonQuickSignals';

function handlers(): Map<string, Handler> {
  const run = globalThis as { [HANDLERS]?: Map<string, Handler> };
  return (run[HANDLERS] ??= new Map());
}

/** Take signal `name` with `handler`, synchronously (register it with `setHandler` too: the SDK buffers signals that have none). */
export function quickSignal(name: string, handler: Handler): void {
  handlers().set(name, handler);
}

/**
 * A thenable that has settled, as the SDK's signal dispatch uses its handler's promise (`.catch`,
 * `.finally`, or `await`): callbacks run at once, and no promise is made.
 */
function settled(error?: { error: unknown }): Promise<void> {
  const thenable = {
    then(onFulfilled?: (v: undefined) => unknown, onRejected?: (e: unknown) => unknown) {
      if (error) onRejected?.(error.error);
      else onFulfilled?.(undefined);
      return thenable;
    },
    catch(onRejected?: (e: unknown) => unknown) {
      if (error) onRejected?.(error.error);
      return settled();
    },
    finally(onFinally?: () => void) {
      onFinally?.();
      return thenable;
    },
  };
  return thenable as unknown as Promise<void>;
}

const inbound: WorkflowInboundCallsInterceptor = {
  handleSignal(input: SignalInput, next) {
    const handler = handlers().get(input.signalName);
    if (!handler) return next(input);
    try {
      handler(input.args[0]);
      return settled();
    } catch (error) {
      return settled({ error });
    }
  },
};

/**
 * The interceptors Temporal loads from this module; beside the signals, it merges an activation's
 * search-attribute upserts (workflows/searchAttributes.ts), the one module every bundle of baton loads.
 */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [inbound],
  internals: [{ concludeActivation: (input, next) => next({ ...input, commands: mergeUpserts(input.commands) }) }],
});
