/**
 * The client beyond `Baton` and `BatonRun`: replay and steering options, pending-list options,
 * positions in a run's stream, the Temporal profile reader and the errors of protective options —
 * `import { parsePosition, temporalConfig } from 'baton-agents/client'`.
 * @packageDocumentation
 * @module baton-agents/client
 */
export { toBatonError } from './baton';
export type { PendingOptions } from './waiting';
export { redactPending } from './sensitive';
export type { RunEventsOptions } from './events';
export type { RunEventBody } from './runEvent';
export { temporalConfig, type TemporalConfigOptions } from './connect';
export { GatedEntryError, LooseningRefusedError, PolicyLoosenedError } from '../common/authority/errors';
export { PROTECTIVE_OPTIONS } from '../common/authority/protective';
export type { ReplayOptions, ReplayStarted } from './replay';
export type { ConversationReplayOptions, ConversationReplayed } from './conversationReplay';
export { conversationError, type ConversationTurn } from './conversation';
export { MAX_MESSAGES_IN_FLIGHT } from './lanes';
export type { SteerOptions } from './steer';
export {
  formatPosition,
  parsePosition,
  type RunStreamItem,
  type RunStreamOptions,
  type StreamPosition,
  type StreamText,
  type TextUnavailable,
} from './follow';
