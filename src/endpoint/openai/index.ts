export { openaiRoutes } from './routes.js';
export type { OpenAIRoutesOptions, OpenAIRequestLimits } from './types.js';
export { extractToolCalls, type ExtractedMessage, type ExtractedToolCall } from './tool-calls.js';
export type { ChoiceResult, TurnHooks, TurnRequest, TurnTicket } from './chat-turn.js';
