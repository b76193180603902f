/**
 * The depth of the stack traces taken in baton's workflow context: 6 frames instead of V8's 10.
 *
 * The SDK records a source-mapped stack for every promise a workflow creates (its stack trace
 * query shows them), and each frame of each of those stacks is mapped through the bundle's source
 * map: in a chain, where every model call passes through a few layers of baton's code, that was the
 * largest single cost of a handoff in the worker (bench/README.md). Six frames still name the
 * function a workflow waits in and its callers'. Set while the worker preloads baton's modules,
 * before the SDK freezes the context's globals; a context that has frozen them keeps its own limit.
 */
Reflect.set(Error, 'stackTraceLimit', 6);
