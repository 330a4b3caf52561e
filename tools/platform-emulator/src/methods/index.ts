import { deleteWebhook, getMe, getWebhookInfo } from './bot.js';
import type { EmulatedMethod } from '../conformance/published.js';
import { answerCallbackQuery } from './callbacks.js';
import { deleteMyCommands, getChatMenuButton, getMyCommands, setChatMenuButton, setMyCommands } from './commands.js';
import type { MethodHandler } from './context.js';
import { approveChatJoinRequest, declineChatJoinRequest, getChatMember, restrictChatMember } from './members.js';
import { sendMessage } from './messages.js';
import { answerPreCheckoutQuery, createInvoiceLink, editUserStarSubscription, getStarTransactions, refundStarPayment } from './payments.js';
import { getUpdates } from './updates.js';

export type { MethodContext, MethodHandler } from './context.js';

const HANDLERS: { [M in EmulatedMethod]: MethodHandler<M> } = {
  getMe,
  deleteWebhook,
  getWebhookInfo,
  getUpdates,
  sendMessage,
  createInvoiceLink,
  answerPreCheckoutQuery,
  refundStarPayment,
  getStarTransactions,
  editUserStarSubscription,
  getChatMember,
  restrictChatMember,
  setMyCommands,
  getMyCommands,
  deleteMyCommands,
  setChatMenuButton,
  getChatMenuButton,
  answerCallbackQuery,
  approveChatJoinRequest,
  declineChatJoinRequest,
};

/** The emulated methods' names, as Telegram spells them. */
export const METHOD_NAMES = Object.keys(HANDLERS) as readonly EmulatedMethod[];

const BY_LOWER = new Map(METHOD_NAMES.map((name) => [name.toLowerCase(), { name, handler: HANDLERS[name] }]));

/**
 * Looks a method up the way the Bot API does, case-insensitively; returns its canonical name and
 * handler, or undefined (the server then answers 404 Not Found, as Telegram does).
 */
export function findMethod(name: string): { name: EmulatedMethod; handler: MethodHandler } | undefined {
  return BY_LOWER.get(name.toLowerCase());
}
