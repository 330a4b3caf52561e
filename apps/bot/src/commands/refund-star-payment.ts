import type { botlink } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import type { CommandOutcome } from '../link/index.js';
import { type PlatformClient, PlatformError } from '../platform/index.js';
import { callForCommand, delivered, failed, failureOf } from './outcome.js';

/**
 * Ack.result of refund_star_payment when the platform says the charge was refunded before: the
 * backend (apps/backend botcommands/commands.ts ALREADY_REFUNDED) treats it as done.
 */
export const ALREADY_REFUNDED = 'already_refunded';

/** Longest charge id the bot forwards; the platform's ids are far shorter. */
const MAX_CHARGE_ID_CHARS = 256;
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/** Why the command cannot be sent to the platform, or undefined when it can. */
function invalidReason(command: botlink.RefundStarPaymentCommand): string | undefined {
  if (command.userId <= 0n || command.userId > BigInt(Number.MAX_SAFE_INTEGER))
    return 'user_id must be a positive platform user id (at most 2^53-1)';
  const length = [...command.platformPaymentChargeId].length;
  if (length === 0 || length > MAX_CHARGE_ID_CHARS) return `platform_payment_charge_id must be 1..${MAX_CHARGE_ID_CHARS} characters`;
  if (CONTROL_CHARS.test(command.platformPaymentChargeId)) return 'platform_payment_charge_id contains control characters';
  return undefined;
}

/** The platform's answer as Ack.error: `platform <status>: <description>` (never the token). */
function platformFailure(err: PlatformError): string {
  return `platform ${err.status ?? 'transport'}: ${err.description}`;
}

/**
 * refund_star_payment: returns a stars payment to its payer with the platform's refundStarPayment
 * `{user_id, telegram_payment_charge_id}`. The platform refunds a charge once, so the command is
 * idempotent on the charge id: `true` is delivered with an empty result, a 400 naming
 * CHARGE_ALREADY_REFUNDED is delivered with result `already_refunded`. Any other refusal, a 5xx or
 * a transport failure is an Ack error carrying the platform's status and description; the backend
 * owns the retry. A command with a bad user id or charge id never reaches the platform.
 */
export async function refundStarPayment(
  platform: PlatformClient,
  command: botlink.RefundStarPaymentCommand,
  logger: Logger,
): Promise<CommandOutcome> {
  const invalid = invalidReason(command);
  if (invalid !== undefined) {
    logger.warn({ reason: invalid }, 'star refund refused: invalid command');
    return failed(invalid);
  }
  const userId = Number(command.userId);
  const platformChargeId = command.platformPaymentChargeId;
  try {
    await callForCommand(platform, 'refundStarPayment', { user_id: userId, telegram_payment_charge_id: platformChargeId });
    logger.info({ userId, platformChargeId }, 'star payment refunded');
    return delivered();
  } catch (err: unknown) {
    if (!(err instanceof PlatformError)) return failureOf(err);
    if (err.kind === 'client' && err.status === 400 && err.description.includes('CHARGE_ALREADY_REFUNDED')) {
      logger.info({ userId, platformChargeId }, 'star payment was already refunded');
      return delivered(ALREADY_REFUNDED);
    }
    const error = platformFailure(err);
    logger.warn({ userId, platformChargeId, error }, 'star refund failed');
    return failed(error);
  }
}
