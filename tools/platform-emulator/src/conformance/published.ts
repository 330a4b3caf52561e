/**
 * The published Bot API shapes the emulator is held against: the result type of each method the
 * emulator serves, the Update, and the error envelope, all taken from @grammyjs/types (the Bot API
 * reference as TypeScript types, the version grammY pins). `schema.ts` turns these into JSON Schema
 * (conformance/bot-api.schema.json, regenerated with `npm run bot-api-schema`).
 *
 * The names below are spelled out because the schema generator cannot evaluate `ReturnType` over
 * the method table; the assertions under them fail the typecheck if a name stops being exactly
 * the method's published result type.
 */
import type {
  ApiError,
  ApiMethods,
  BotCommand,
  ChatMember,
  MenuButton,
  Message,
  StarTransactions,
  Update,
  UserFromGetMe,
  WebhookInfo,
} from '@grammyjs/types';

/** The `result` of each emulated method, as the Bot API publishes it. */
export interface BotApiResults {
  getMe: UserFromGetMe;
  deleteWebhook: true;
  getWebhookInfo: WebhookInfo;
  getUpdates: Update[];
  sendMessage: Message.TextMessage;
  createInvoiceLink: string;
  answerPreCheckoutQuery: true;
  refundStarPayment: true;
  getStarTransactions: StarTransactions;
  editUserStarSubscription: true;
  getChatMember: ChatMember;
  restrictChatMember: true;
  setMyCommands: true;
  getMyCommands: BotCommand[];
  deleteMyCommands: true;
  setChatMenuButton: true;
  getChatMenuButton: MenuButton;
  answerCallbackQuery: true;
  approveChatJoinRequest: true;
  declineChatJoinRequest: true;
}

/** The error envelope `{ok: false, error_code, description, parameters?}`. */
export type BotApiError = ApiError;

/** One update as getUpdates delivers it. */
export type BotApiUpdate = Update;

/** A method the emulator serves. */
export type EmulatedMethod = keyof BotApiResults;

type Published<M extends EmulatedMethod> = ReturnType<ApiMethods<never>[M]>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Compiles only when every name above is exactly the published result of its method. */
export const resultsArePublished: { [M in EmulatedMethod]: Same<BotApiResults[M], Published<M>> } = {
  getMe: true,
  deleteWebhook: true,
  getWebhookInfo: true,
  getUpdates: true,
  sendMessage: true,
  createInvoiceLink: true,
  answerPreCheckoutQuery: true,
  refundStarPayment: true,
  getStarTransactions: true,
  editUserStarSubscription: true,
  getChatMember: true,
  restrictChatMember: true,
  setMyCommands: true,
  getMyCommands: true,
  deleteMyCommands: true,
  setChatMenuButton: true,
  getChatMenuButton: true,
  answerCallbackQuery: true,
  approveChatJoinRequest: true,
  declineChatJoinRequest: true,
};
