import { randomUUID } from 'node:crypto';
import type { CommandOutcome } from '../../src/botcommands/index.js';

/** How the platform and the link treat one refund_star_payment: done, done but the Ack lost, or never reached. */
export type Fate = 'ok' | 'ack_lost' | 'unreachable';

/**
 * The chat platform as the money-conservation properties see it: every charge it took and whether
 * it gave the stars back. Shared by the backend's property and the one with the bot's outbox
 * (tools/faults), so both hold the ledger against the same picture of the platform.
 */
export class StarPlatform {
  readonly charges = new Map<string, { user: bigint; orderId: string; amount: bigint; refunded: boolean }>();
  /** The fates of successive refund calls, cycled; empty = every call is `ok`. */
  fates: Fate[] = [];
  private turn = 0;

  /** A charge the platform took; its charge id. */
  take(orderId: string, amount: bigint, user: bigint): string {
    const id = `stars-${randomUUID()}`;
    this.charges.set(id, { user, orderId, amount, refunded: false });
    return id;
  }

  /** refundStarPayment as the Bot API answers it (a charge is refunded once), behind a link that may lose the command or its Ack. */
  refund(user: bigint, platformChargeId: string): CommandOutcome {
    const fate = this.fates.length === 0 ? 'ok' : (this.fates[this.turn++ % this.fates.length] ?? 'ok');
    if (fate === 'unreachable') return { status: 'no_bot' };
    const charge = this.charges.get(platformChargeId);
    if (!charge || charge.user !== user) return { status: 'error', error: 'platform 400: Bad Request: CHARGE_NOT_FOUND' };
    const already = charge.refunded;
    charge.refunded = true;
    if (fate === 'ack_lost') return { status: 'timeout' };
    return { status: 'delivered', result: already ? 'already_refunded' : '' };
  }
}
