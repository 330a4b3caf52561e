import type { botlink } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import type { CommandOutcome } from '../link/index.js';
import { PlatformError, type PlatformClient } from '../platform/index.js';
import { callForCommand, delivered, failed, failureOf } from './outcome.js';

/** Longest charge id the bot forwards; the platform's ids are far shorter. */
const MAX_CHARGE_ID_CHARS = 256;
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/** Why the command cannot be sent to the platform, or undefined when it can. */
function invalidReason(command: botlink.EditStarSubscriptionCommand): string | undefined {
  if (command.userId <= 0n || command.userId > BigInt(Number.MAX_SAFE_INTEGER))
    return 'user_id must be a positive platform user id (at most 2^53-1)';
  const length = [...command.platformPaymentChargeId].length;
  if (length === 0 || length > MAX_CHARGE_ID_CHARS) return `platform_payment_charge_id must be 1..${MAX_CHARGE_ID_CHARS} characters`;
  if (CONTROL_CHARS.test(command.platformPaymentChargeId)) return 'platform_payment_charge_id contains control characters';
  return undefined;
}

/**
 * edit_star_subscription: cancels (`is_canceled`) or re-enables the extension of a player's stars
 * subscription with the platform's editUserStarSubscription `{user_id, telegram_payment_charge_id,
 * is_canceled}` (a cancelled subscription stays active to the end of its paid period; the platform
 * then does not renew it). Delivered, with an empty result, when the platform answers True; the
 * platform's refusal (an unknown charge, an expired subscription), a 5xx or a transport failure is
 * an Ack error carrying the platform's status and description, and the backend decides what to tell
 * the player. Repeating the command is harmless (the platform's state is set, not toggled). A
 * command with a bad user id or charge id never reaches the platform.
 */
export async function editStarSubscription(
  platform: PlatformClient,
  command: botlink.EditStarSubscriptionCommand,
  logger: Logger,
): Promise<CommandOutcome> {
  const invalid = invalidReason(command);
  if (invalid !== undefined) {
    logger.warn({ reason: invalid }, 'star subscription edit refused: invalid command');
    return failed(invalid);
  }
  const userId = Number(command.userId);
  const platformChargeId = command.platformPaymentChargeId;
  const isCanceled = command.isCanceled;
  try {
    await callForCommand(platform, 'editUserStarSubscription', {
      user_id: userId,
      telegram_payment_charge_id: platformChargeId,
      is_canceled: isCanceled,
    });
    logger.info({ userId, platformChargeId, isCanceled }, isCanceled ? 'star subscription cancelled' : 'star subscription re-enabled');
    return delivered();
  } catch (err: unknown) {
    const outcome = err instanceof PlatformError ? failed(`platform ${err.status ?? 'transport'}: ${err.description}`) : failureOf(err);
    logger.warn({ userId, platformChargeId, isCanceled, error: outcome.error }, 'star subscription edit failed');
    return outcome;
  }
}
