/**
 * Text streams: the transport port, its in-process and Redis transports, and the text boards a
 * follower rebuilds — `import { RedisStreams } from 'baton-agents/streams'`.
 * @packageDocumentation
 * @module baton-agents/streams
 */
export { applyChange, TextBoard, type TextChange, type TextPiece, type TextReset } from './board';
export type { MessageStreamItem } from './message';
export { InProcessStreams, inProcessStreams, type InProcessStreamsOptions } from './memory';
export { RedisStreams, type RedisStreamsOptions, type RedisTlsOptions } from './redis';
export { STREAMS_ENV, streamsFromEnv } from './env';
export type { StreamEntry, StreamTransport, TextDelta } from './types';
