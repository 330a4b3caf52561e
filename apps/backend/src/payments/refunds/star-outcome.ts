import type { CommandOutcome } from '../../botcommands/index.js';

/**
 * What a refund_star_payment outcome means for the money:
 * - `refunded`: the platform returned the stars now, or had already (Ack delivered);
 * - `refused`: the platform answered a 4xx other than 429 (no such charge, not this user's, …);
 *   sending it again cannot succeed, an operator follows up. The bot reports a platform answer as
 *   `platform <status>: <description>` in Ack.error (`platform transport: …` when none came);
 * - `unknown`: no bot, no Ack in time, the link lost, a transport failure or 5xx between the bot and
 *   the platform: the refund may or may not have happened; sending again is safe because the
 *   platform refunds a charge at most once (CHARGE_ALREADY_REFUNDED comes back as delivered).
 */
export type StarRefundVerdict =
  | { kind: 'refunded'; already: boolean }
  | { kind: 'refused'; error: string }
  | { kind: 'unknown'; error: string };

const PLATFORM_REFUSAL = /(?:^|[\s:])4(?!29)\d\d(?=[\s:]|$)/;

/** Classifies one refund command outcome (see StarRefundVerdict). */
export function starRefundVerdict(outcome: CommandOutcome, alreadyRefunded: string): StarRefundVerdict {
  switch (outcome.status) {
    case 'delivered':
      return { kind: 'refunded', already: outcome.result === alreadyRefunded };
    case 'failed': // the bot's Ack.error (an older gateway sends it as `error`)
    case 'error':
      return PLATFORM_REFUSAL.test(outcome.error)
        ? { kind: 'refused', error: outcome.error.slice(0, 500) }
        : { kind: 'unknown', error: outcome.error.slice(0, 500) };
    case 'not_delivered':
      return { kind: 'unknown', error: 'not delivered' };
    case 'timeout':
      return { kind: 'unknown', error: 'no ack in time' };
    case 'no_bot':
      return { kind: 'unknown', error: 'no bot connected' };
  }
}
