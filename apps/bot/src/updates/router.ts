import type { Logger } from '@wordgame/logging';
import { isChat, joinersOf, type Joiner } from '../chat/index.js';
import {
  parseUpdate,
  type PlatformClient,
  type RawUpdate,
  type TgCallbackQuery,
  type TgChatJoinRequest,
  type TgMessage,
  type TgPreCheckoutQuery,
  type TgRefundedPayment,
  type TgSuccessfulPayment,
  type TgUser,
} from '../platform/index.js';
import type { TaskSet } from '../support/index.js';
import type { UpdateHandler } from './poller.js';

export interface RouterDeps {
  platform: PlatformClient;
  /** BOT_DISCUSSION_CHAT_ID; joins elsewhere are ignored. */
  discussionChatId: string | undefined;
  /** Gates a user who joined the discussion chat (JoinGate.admit); runs in the background. */
  admitJoiner: (joiner: Joiner) => Promise<void>;
  /** Background work (eligibility, pre-checkout answers); stop() waits for it briefly. */
  tasks: TaskSet;
  logger: Logger;
  /** Answers a join request to the discussion chat (approve or decline); runs in the background. */
  onJoinRequest?: (request: TgChatJoinRequest) => Promise<void>;
  /** Answers a pre-checkout query; runs in the background. */
  onPreCheckout?: (query: TgPreCheckoutQuery) => Promise<void>;
  /** Makes a successful payment durable; awaited before the update is confirmed. */
  onSuccessfulPayment?: (payment: TgSuccessfulPayment, message: TgMessage) => Promise<void>;
  /** Makes a refund made outside the bot (refunded_payment) durable; awaited before the update is confirmed. */
  onRefundedPayment?: (refund: TgRefundedPayment, message: TgMessage) => Promise<void>;
  /** Parks an update the bot cannot handle as a dead letter, durably; throws when it cannot. */
  park: (update: RawUpdate, reason: string) => void;
  /** Told the sender of each handled update (message, pre-checkout query, chat-member change, button press). */
  onSender?: (user: TgUser) => void;
  /** Sees every message that is not a payment (the chat commands pick theirs); runs in the background. */
  onChatMessage?: (message: TgMessage) => Promise<void>;
  /** Answers a button press (callback_query); runs in the background. */
  onCallbackQuery?: (query: TgCallbackQuery) => Promise<void>;
}

/**
 * Turns each update into the bot's reactions: a user joining the discussion chat is gated by
 * their chat eligibility, a pre-checkout query is answered, a successful payment is stored for
 * forwarding, and so is a refund made outside the bot (refunded_payment). Only those are awaited
 * (each must be durable before its update is confirmed); the rest (chat commands and button presses
 * included) runs in the background with failures logged. Each update is first checked against the
 * fields the bot reads: a kind the bot does not handle is ignored, a handled kind with a missing
 * or mistyped field is parked as a dead letter (raw update and reason) before its update is
 * confirmed, so it never blocks the updates behind it; a malformed payment is logged at error
 * level, never dropped silently.
 */
export function updateRouter(deps: RouterDeps): UpdateHandler {
  const { logger, tasks } = deps;
  return async (raw: RawUpdate) => {
    const parsed = parseUpdate(raw);
    if (parsed.kind === 'ignored') {
      logger.debug({ updateId: raw.update_id, fields: Object.keys(raw) }, 'update of a kind the bot does not handle ignored');
      return;
    }
    if (parsed.kind === 'malformed') {
      deps.park(raw, `malformed update: ${parsed.reason}`);
      const payment = isRecord(raw['message']) && raw['message']['successful_payment'] !== undefined;
      const refund = isRecord(raw['message']) && raw['message']['refunded_payment'] !== undefined;
      const log = { updateId: raw.update_id, reason: parsed.reason };
      if (payment) logger.error(log, 'malformed successful_payment parked as a dead letter; an operator must reconcile it');
      else if (refund) logger.error(log, 'malformed refunded_payment parked as a dead letter; an operator must reconcile it');
      else logger.warn(log, 'malformed update parked as a dead letter');
      return;
    }
    const { update } = parsed;
    const sender =
      update.message?.from ??
      update.pre_checkout_query?.from ??
      update.chat_member?.from ??
      update.callback_query?.from ??
      update.chat_join_request?.from;
    if (sender) deps.onSender?.(sender);
    const payment = update.message?.successful_payment;
    if (payment && update.message && deps.onSuccessfulPayment) {
      await deps.onSuccessfulPayment(payment, update.message);
      return;
    }
    const refunded = update.message?.refunded_payment;
    if (refunded && update.message && deps.onRefundedPayment) {
      await deps.onRefundedPayment(refunded, update.message);
      return;
    }
    const query = update.pre_checkout_query;
    if (query && deps.onPreCheckout) {
      const answer = deps.onPreCheckout;
      tasks.run(
        () => answer(query),
        (err) => logger.error({ preCheckoutQueryId: query.id, err: errorText(err) }, 'pre-checkout query not answered'),
      );
      return;
    }
    const press = update.callback_query;
    if (press && deps.onCallbackQuery) {
      const answer = deps.onCallbackQuery;
      tasks.run(
        () => answer(press),
        (err) => logger.error({ updateId: raw.update_id, err: errorText(err) }, 'button press not handled'),
      );
      return;
    }
    const chatMessage = update.message;
    if (chatMessage && deps.onChatMessage) {
      const handle = deps.onChatMessage;
      tasks.run(
        () => handle(chatMessage),
        (err) => logger.error({ updateId: raw.update_id, err: errorText(err) }, 'chat message not handled'),
      );
    }
    const chatId = deps.discussionChatId;
    if (chatId === undefined) return;
    const request = update.chat_join_request;
    if (request) {
      const answer = deps.onJoinRequest;
      if (!answer || !isChat(request.chat, chatId)) return;
      tasks.run(
        () => answer(request),
        (err) => logger.warn({ platformUserId: request.from.id, err: errorText(err) }, 'could not answer a join request'),
      );
      return;
    }
    for (const joiner of joinersOf(update, chatId)) {
      tasks.run(
        () => deps.admitJoiner(joiner),
        (err) => logger.warn({ platformUserId: joiner.user.id, err: errorText(err) }, 'could not gate a user joining the discussion chat'),
      );
    }
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
