import { z } from 'zod';

/**
 * The result shapes of the Bot API methods whose result the bot reads
 * (https://core.telegram.org/bots/api). The client accepts a 2xx only when its `result` matches
 * the shape asked for; keys the bot does not read pass through untouched.
 */

const int = () => z.number().int().safe();

/** getMe: the bot's own user. */
export const meResult = z.looseObject({ id: int(), username: z.string().optional() });

/**
 * getUpdates: an array of objects, each with an integer update_id. The payload of each update is
 * checked later, per update, so one malformed update never discards the whole batch.
 */
export const updatesResult = z.array(z.looseObject({ update_id: int().nonnegative() }));

/** An update as it came from getUpdates: its id is trusted, everything else is still raw. */
export type RawUpdate = z.infer<typeof updatesResult>[number];

export const tgUser = z.looseObject({ id: int(), is_bot: z.boolean(), first_name: z.string().optional(), username: z.string().optional() });

/** getChatMember: a ChatMember in any of its status shapes. */
export const chatMemberResult = z.looseObject({
  status: z.enum(['creator', 'administrator', 'member', 'restricted', 'left', 'kicked']),
  user: tgUser,
  is_member: z.boolean().optional(),
});

/** Methods answering True (restrictChatMember, answerPreCheckoutQuery, refundStarPayment). */
export const trueResult = z.boolean();

/** sendMessage: the sent message. */
export const messageResult = z.looseObject({ message_id: int() });

/** createInvoiceLink: the link. */
export const linkResult = z.string().min(1);

/** A TransactionPartner: only the user kind (payments from and refunds to users) is read. */
const transactionPartner = z.looseObject({ type: z.string(), user: tgUser.optional(), invoice_payload: z.string().optional() });

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
});
