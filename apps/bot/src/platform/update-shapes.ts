import { z } from 'zod';
import { chatMemberResult, tgChat, tgUser, type RawUpdate } from './shapes.js';
import type {
  TgCallbackQuery,
  TgChatJoinRequest,
  TgChatMemberUpdated,
  TgMessage,
  TgMessageEntity,
  TgPreCheckoutQuery,
  TgRefundedPayment,
  TgSuccessfulPayment,
  TgUpdate,
} from './types.js';

const int = () => z.number().int().safe();
const chat = tgChat;

/** Latest subscription expiration the bot accepts: 9999-12-31T23:59:59Z (a larger one is no date). */
export const MAX_EXPIRATION_UNIX = 253_402_300_799;

/**
 * A successful_payment with every field the outbox row needs. A subscription's charge
 * (`is_recurring`) must carry a `subscription_expiration_date` that is a whole positive unix second
 * (at most year 9999); `is_first_recurring` only on a recurring charge, and an expiration only on
 * one. Anything else is malformed (the update is parked and counted, for an operator to reconcile).
 */
const successfulPayment = z
  .looseObject({
    currency: z.string().min(1),
    total_amount: int().positive(),
    invoice_payload: z.string().min(1),
    telegram_payment_charge_id: z.string().min(1),
    is_recurring: z.boolean().optional(),
    is_first_recurring: z.boolean().optional(),
    subscription_expiration_date: int().positive().max(MAX_EXPIRATION_UNIX).optional(),
  })
  .superRefine((payment, ctx) => {
    const recurring = payment.is_recurring === true;
    if (recurring && payment.subscription_expiration_date === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['subscription_expiration_date'],
        message: 'a recurring payment must say when its period ends',
      });
    }
    if (!recurring && payment.subscription_expiration_date !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['subscription_expiration_date'], message: 'only a recurring payment has an expiration' });
    }
    if (!recurring && payment.is_first_recurring === true) {
      ctx.addIssue({ code: 'custom', path: ['is_first_recurring'], message: 'is_first_recurring without is_recurring' });
    }
  }) satisfies z.ZodType<TgSuccessfulPayment>;

const entity = z.looseObject({
  type: z.string(),
  offset: int().nonnegative(),
  length: int().nonnegative(),
}) satisfies z.ZodType<TgMessageEntity>;

/**
 * A refunded_payment with every field the outbox row needs: Telegram Stars only (a stars bot is
 * never refunded in another currency), a positive whole amount and a charge id the backend keys on.
 */
const refundedPayment = z.looseObject({
  currency: z.literal('XTR'),
  total_amount: int().positive(),
  invoice_payload: z.string().max(128),
  telegram_payment_charge_id: z.string().min(1).max(256),
}) satisfies z.ZodType<TgRefundedPayment>;

const message = z.looseObject({
  message_id: int(),
  chat,
  from: tgUser.optional(),
  new_chat_members: z.array(tgUser).optional(),
  successful_payment: successfulPayment.optional(),
  text: z.string().optional(),
  entities: z.array(entity).optional(),
  refunded_payment: refundedPayment.optional(),
}) satisfies z.ZodType<TgMessage>;

/** A button press; its data is checked by the feature that made the button, never trusted here. */
const callbackQuery = z.looseObject({
  id: z.string().min(1),
  from: tgUser,
  data: z.string().optional(),
  message: z.looseObject({ message_id: int(), chat }).optional(),
}) satisfies z.ZodType<TgCallbackQuery>;

const preCheckoutQuery = z.looseObject({
  id: z.string().min(1),
  from: tgUser,
  currency: z.string().min(1),
  total_amount: int().nonnegative(),
  invoice_payload: z.string(),
}) satisfies z.ZodType<TgPreCheckoutQuery>;

const chatMemberUpdated = z.looseObject({
  chat,
  from: tgUser,
  old_chat_member: chatMemberResult,
  new_chat_member: chatMemberResult,
  via_join_request: z.boolean().optional(),
}) satisfies z.ZodType<TgChatMemberUpdated>;

const chatJoinRequest = z.looseObject({
  chat,
  from: tgUser,
  user_chat_id: int(),
  date: int().nonnegative(),
}) satisfies z.ZodType<TgChatJoinRequest>;

const update = z.looseObject({
  update_id: int().nonnegative(),
  message: message.optional(),
  chat_member: chatMemberUpdated.optional(),
  pre_checkout_query: preCheckoutQuery.optional(),
  callback_query: callbackQuery.optional(),
  chat_join_request: chatJoinRequest.optional(),
}) satisfies z.ZodType<TgUpdate>;

/** The update kinds the bot handles; any other kind is ignored (nothing of it is read). */
export const HANDLED_KINDS = ['message', 'chat_member', 'pre_checkout_query', 'callback_query', 'chat_join_request'] as const;

/** What the router makes of a raw update. */
export type ParsedUpdate = { kind: 'handled'; update: TgUpdate } | { kind: 'ignored' } | { kind: 'malformed'; reason: string };

/**
 * Checks a raw update against the fields the bot reads. An update without any handled kind is
 * `ignored` (an unknown kind takes nothing from the bot); a handled kind whose payload lacks a
 * field or has one of the wrong type (a successful_payment without its charge id, a message
 * whose chat is a string) is `malformed`, with the first problem as the reason.
 */
export function parseUpdate(raw: RawUpdate): ParsedUpdate {
  if (!HANDLED_KINDS.some((kind) => raw[kind] !== undefined)) return { kind: 'ignored' };
  const parsed = update.safeParse(raw);
  if (parsed.success) return { kind: 'handled', update: parsed.data };
  const issue = parsed.error.issues[0];
  return { kind: 'malformed', reason: issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid update' };
}
