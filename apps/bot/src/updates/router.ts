import type { Logger } from '@wordgame/logging';
import { gateJoiner, joinersOf, type ResolveEligibility } from '../chat/join.js';
import type { PlatformClient } from '../platform/client.js';
import type { TgMessage, TgPreCheckoutQuery, TgSuccessfulPayment, TgUpdate } from '../platform/types.js';
import type { TaskSet } from '../support/tasks.js';
import type { UpdateHandler } from './poller.js';

export interface RouterDeps {
  platform: PlatformClient;
  /** BOT_DISCUSSION_CHAT_ID; joins elsewhere are ignored. */
  discussionChatId: string | undefined;
  resolveEligibility: ResolveEligibility;
  /** Background work (eligibility, pre-checkout answers); stop() waits for it briefly. */
  tasks: TaskSet;
  logger: Logger;
  /** Answers a pre-checkout query; runs in the background. */
  onPreCheckout?: (query: TgPreCheckoutQuery) => Promise<void>;
  /** Makes a successful payment durable; awaited before the update is confirmed. */
  onSuccessfulPayment?: (payment: TgSuccessfulPayment, message: TgMessage) => Promise<void>;
}

/**
 * Turns each update into the bot's reactions: a user joining the discussion chat is gated by
 * their chat eligibility, a pre-checkout query is answered, a successful payment is stored for
 * forwarding. Only the payment is awaited (it must be durable before its update is confirmed);
 * the rest runs in the background with failures logged.
 */
export function updateRouter(deps: RouterDeps): UpdateHandler {
  const { logger, tasks } = deps;
  return async (update: TgUpdate) => {
    const payment = update.message?.successful_payment;
    if (payment && update.message && deps.onSuccessfulPayment) {
      await deps.onSuccessfulPayment(payment, update.message);
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
    const chatId = deps.discussionChatId;
    if (chatId === undefined) return;
    for (const joiner of joinersOf(update, chatId)) {
      tasks.run(
        () => gateJoiner(deps.platform, chatId, joiner, deps.resolveEligibility, logger),
        (err) => logger.warn({ platformUserId: joiner.user.id, err: errorText(err) }, 'could not gate a user joining the discussion chat'),
      );
    }
  };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
