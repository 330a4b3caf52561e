import { deleteWebhook, getMe, getWebhookInfo } from './bot.js';
import type { MethodHandler } from './context.js';
import { getChatMember, restrictChatMember } from './members.js';
import { sendMessage } from './messages.js';
import { answerPreCheckoutQuery, createInvoiceLink, getStarTransactions, refundStarPayment } from './payments.js';
import { getUpdates } from './updates.js';

export type { MethodContext, MethodHandler } from './context.js';

const HANDLERS: Record<string, MethodHandler> = {
  getMe,
  deleteWebhook,
  getWebhookInfo,
  getUpdates,
  sendMessage,
  createInvoiceLink,
  answerPreCheckoutQuery,
  refundStarPayment,
  getStarTransactions,
  getChatMember,
  restrictChatMember,
};

const BY_LOWER = new Map(Object.entries(HANDLERS).map(([name, handler]) => [name.toLowerCase(), { name, handler }]));

/** The emulated methods' names, as Telegram spells them. */
export const METHOD_NAMES: readonly string[] = Object.keys(HANDLERS);

/**
 * Looks a method up the way the Bot API does, case-insensitively; returns its canonical name and
 * handler, or undefined (the server then answers 404 Not Found, as Telegram does).
 */
export function findMethod(name: string): { name: string; handler: MethodHandler } | undefined {
  return BY_LOWER.get(name.toLowerCase());
}
