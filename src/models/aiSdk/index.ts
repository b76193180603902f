/** AI SDK models as baton models: any `LanguageModelV3` drives an agent. */
export {
  aiSdk,
  AI_SDK_PROVIDER,
  type AiSdkModelSettings,
  type AiSdkModelSpec,
  type AiSdkOptions,
  type AiSdkResponseFormat,
} from './spec';
export { AiSdkProvider, type AiSdkProviderOptions } from './provider';
export { aiSdkProblems, withAiSdkProvider } from './registry';
