import { z } from 'zod';
import type { BotMethod, ReadResults, TgChat, TgChatMember, TgUser } from './types.js';

/**
 * The runtime validators of the Bot API answers the bot reads: a 2xx is accepted only when its
 * `result` matches its method's shape, so a hostile or broken answer never reaches the bot's
 * logic. Each validator is typed to produce the read view of types.ts (a projection of the
 * published @grammyjs/types type), so the compiler holds the two in agreement; keys the bot does
 * not read pass through untouched.
 */

const int = () => z.number().int().safe();

export const tgUser = z.looseObject({
  id: int(),
  is_bot: z.boolean(),
  first_name: z.string(),
  username: z.string().optional(),
}) satisfies z.ZodType<TgUser>;

export const tgChat = z.looseObject({ id: int(), type: z.string(), username: z.string().optional() }) satisfies z.ZodType<TgChat>;

/** getMe: the bot's own user. */
export const meResult = z.looseObject({ id: int(), username: z.string().optional() }) satisfies z.ZodType<ReadResults['getMe']>;

/**
 * getUpdates: an array of objects, each with an integer update_id. The payload of each update is
 * checked later, per update, so one malformed update never discards the whole batch.
 */
export const updatesResult = z.array(z.looseObject({ update_id: int().nonnegative() })) satisfies z.ZodType<ReadResults['getUpdates']>;

/** An update as it came from getUpdates: its id is trusted, everything else is still raw. */
export type RawUpdate = z.infer<typeof updatesResult>[number];

/** getChatMember: a ChatMember in any of its status shapes; a `restricted` one must say whether the user is in the chat. */
export const chatMemberResult = z.union([
  z.looseObject({ status: z.enum(['creator', 'administrator', 'member', 'left', 'kicked']), user: tgUser }),
  z.looseObject({ status: z.literal('restricted'), user: tgUser, is_member: z.boolean() }),
]) satisfies z.ZodType<TgChatMember>;

/**
 * Methods answering True (restrictChatMember, answerPreCheckoutQuery, refundStarPayment,
 * editUserStarSubscription, approve/declineChatJoinRequest).
 */
export const trueResult = z.boolean();

/** sendMessage: the sent message. */
export const messageResult = z.looseObject({ message_id: int() }) satisfies z.ZodType<ReadResults['sendMessage']>;

/** createInvoiceLink: the link. */
export const linkResult = z.string().min(1) satisfies z.ZodType<ReadResults['createInvoiceLink']>;

/** A TransactionPartner: only the user kind (payments from and refunds to users) is read. */
const transactionPartner = z.looseObject({
  type: z.string(),
  user: tgUser.optional(),
  invoice_payload: z.string().optional(),
  subscription_period: int().positive().optional(),
});

/** getStarTransactions: StarTransactions `{transactions: StarTransaction[]}`, at most 100 per call. */
export const starTransactionsResult = z.looseObject({
  transactions: z
    .array(
      z.looseObject({
        id: z.string().min(1).max(256),
        amount: int().nonnegative(),
        date: int().nonnegative(),
        source: transactionPartner.optional(),
        receiver: transactionPartner.optional(),
      }),
    )
    .max(100),
}) satisfies z.ZodType<ReadResults['getStarTransactions']>;

/**
 * The result validator of every method the bot calls. The mapped type makes a method without a
 * validator, or a validator whose output is not the method's read view, a build error.
 */
export const RESULT_SHAPES: { [M in BotMethod]: z.ZodType<ReadResults[M]> } = {
  getMe: meResult,
  getUpdates: updatesResult,
  sendMessage: messageResult,
  createInvoiceLink: linkResult,
  answerPreCheckoutQuery: trueResult,
  getChatMember: chatMemberResult,
  restrictChatMember: trueResult,
  refundStarPayment: trueResult,
  getStarTransactions: starTransactionsResult,
  editUserStarSubscription: trueResult,
  answerCallbackQuery: trueResult,
  setMyCommands: trueResult,
  setChatMenuButton: trueResult,
  approveChatJoinRequest: trueResult,
  declineChatJoinRequest: trueResult,
};
