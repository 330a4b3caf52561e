/**
 * The chat platform (Telegram Bot API): the one client every call goes through, its Health
 * counters, the read views of the Bot API objects the bot uses and the validation of each raw update
 * against them (every Bot API shape is checked here, so nothing unchecked reaches the rest of the bot).
 */
export { PlatformClient, PlatformError } from './client.js';
export { HealthCounters } from './health-counters.js';
export type { RawUpdate } from './shapes.js';
export { HANDLED_KINDS, parseUpdate } from './update-shapes.js';
export {
  isInChat,
  type BotMethod,
  type MethodParams,
  type ReadResults,
  type TgCallbackQuery,
  type TgChat,
  type TgChatJoinRequest,
  type TgChatMember,
  type TgMessage,
  type TgPreCheckoutQuery,
  type TgRefundedPayment,
  type TgStarTransaction,
  type TgSuccessfulPayment,
  type TgUpdate,
  type TgUser,
} from './types.js';
