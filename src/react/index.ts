/**
 * 'baton-agents/react': what a front end on the AI SDK's `useChat` needs to talk to baton — a
 * transport pointed at the service's UI message stream route, and the view of a message without the
 * text baton replaced (docs/apps.md). Needs the `ai` package.
 */
export { batonChatTransport, type BatonChatTransportOptions } from './transport';
export { TEXT_RESET_PART, withoutReplacedText } from './replacedText';
