import type { Logger } from '@wordgame/logging';
import type { PlatformClient, TgChatJoinRequest } from '../platform/index.js';
import type { ResolveEligibility } from './join.js';

/** How the join requests of the discussion chat were answered since start (the bot's health JSON). */
export interface JoinRequestCounts {
  approved: number;
  declined: number;
  /** Declined because the eligibility could not be resolved (link down, timeout, an error answer): fail-closed. */
  declinedUnresolved: number;
  /** Requests whose approve or decline call the platform did not take (the request stays pending). */
  unanswered: number;
}

/**
 * Answers join requests to the discussion chat (a chat that takes join requests) from the user's
 * chat eligibility (ResolveChatEligibility): eligible is approved; not eligible or not registered is
 * declined, so such a user never enters. A lookup that fails is declined too (fail-closed) and
 * counted apart; the user may ask again once the link is back. Chats without join requests keep
 * the restrict-after-join gate (JoinGate).
 */
export class JoinRequestAnswers {
  readonly counts: JoinRequestCounts = { approved: 0, declined: 0, declinedUnresolved: 0, unanswered: 0 };

  constructor(
    private readonly platform: PlatformClient,
    private readonly chatId: string,
    private readonly resolve: ResolveEligibility,
    private readonly logger: Logger,
  ) {}

  /** Approves or declines one request; never throws (a failed call is logged and counted). */
  async answer(request: TgChatJoinRequest): Promise<void> {
    const userId = request.from.id;
    let verdict: 'approve' | 'decline' | 'unresolved';
    try {
      const { registered, eligible } = await this.resolve(String(userId));
      verdict = registered && eligible ? 'approve' : 'decline';
    } catch (err: unknown) {
      verdict = 'unresolved';
      this.logger.warn(
        { platformUserId: userId, err: err instanceof Error ? err.message : String(err) },
        'chat eligibility unresolved; join request declined (fail-closed)',
      );
    }
    const method = verdict === 'approve' ? 'approveChatJoinRequest' : 'declineChatJoinRequest';
    try {
      await this.platform.call(method, { chat_id: request.chat.id, user_id: userId });
    } catch (err: unknown) {
      this.counts.unanswered += 1;
      this.logger.error(
        { platformUserId: userId, method, err: err instanceof Error ? err.message : String(err) },
        'join request not answered; it stays pending and the user stays outside',
      );
      return;
    }
    if (verdict === 'approve') this.counts.approved += 1;
    else if (verdict === 'decline') this.counts.declined += 1;
    else this.counts.declinedUnresolved += 1;
    this.logger.info({ platformUserId: userId, verdict, chatId: this.chatId }, 'discussion chat join request answered');
  }
}
