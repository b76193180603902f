/**
 * Model providers' options and the provider port's call context, beside the providers the front
 * door exports — `import type { OpenAIProviderOptions } from 'baton-agents/models'`.
 * @packageDocumentation
 * @module baton-agents/models
 */
export type { AiSdkModelSettings, AiSdkOptions, AiSdkProviderOptions } from './aiSdk';
export type { OpenAIProviderOptions, ResponseFormatMode } from './openai';
export type { ModelCallContext } from './provider';
export type { ScriptedOptions } from './spec';
