import type { botlink } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import type { CommandOutcome } from '../link/index.js';
import type { PlatformClient, TgStarTransaction } from '../platform/index.js';
import { callForCommand, delivered, failed, failureOf } from './outcome.js';

/** Most transactions one command asks for (the platform's own page limit). */
export const MAX_STAR_TRANSACTIONS = 100;
/** Longest invoice payload forwarded (the platform caps payloads at 128 bytes). */
const MAX_PAYLOAD_CHARS = 128;

/**
 * One transaction in Ack.result: `payment` from a user (the charge id, its payer and invoice
 * payload, and `subscription_period` on a subscription's charge), `refund` to a user (the refunded charge's id), `other` for any other partner.
 */
export interface CompactStarTransaction {
  id: string;
  amount: number;
  date: number;
  kind: 'payment' | 'refund' | 'other';
  user_id?: number;
  payload?: string;
  /** The platform's TransactionPartnerUser.subscription_period (seconds), only on a subscription's charges. */
  subscription_period?: number;
}

/**
 * get_star_transactions: one page of the bot's stars transactions through the platform's
 * getStarTransactions `{offset, limit}`, in the platform's own order (documented chronological; the
 * bot neither sorts nor assumes one), delivered as compact JSON `{"transactions": [...]}` in
 * Ack.result (at most 100 entries, so the Ack stays small). An offset below 0 or a limit outside
 * 1..100 never reaches the platform; a refusal, a 5xx or an answer of the wrong shape is an Ack error.
 * The backend's reconciliation pages through and reads the order off the dates.
 */
export async function getStarTransactions(
  platform: PlatformClient,
  command: botlink.GetStarTransactionsCommand,
  logger: Logger,
): Promise<CommandOutcome> {
  if (command.offset < 0n || command.offset > BigInt(Number.MAX_SAFE_INTEGER)) return failed('offset must be 0 or more');
  if (command.limit < 1n || command.limit > BigInt(MAX_STAR_TRANSACTIONS)) return failed(`limit must be 1..${MAX_STAR_TRANSACTIONS}`);
  try {
    const page = await callForCommand(platform, 'getStarTransactions', { offset: Number(command.offset), limit: Number(command.limit) });
    const transactions = page.transactions.map(compact);
    logger.info({ offset: Number(command.offset), count: transactions.length }, 'star transactions read');
    return delivered(JSON.stringify({ transactions }));
  } catch (err: unknown) {
    return failureOf(err);
  }
}

function compact(t: TgStarTransaction): CompactStarTransaction {
  const base = { id: t.id, amount: t.amount, date: t.date };
  if (t.source?.type === 'user' && t.source.user) {
    const period = t.source.subscription_period;
    return {
      ...base,
      kind: 'payment',
      user_id: t.source.user.id,
      payload: (t.source.invoice_payload ?? '').slice(0, MAX_PAYLOAD_CHARS),
      ...(period === undefined ? {} : { subscription_period: period }),
    };
  }
  if (t.receiver?.type === 'user' && t.receiver.user) return { ...base, kind: 'refund', user_id: t.receiver.user.id };
  return { ...base, kind: 'other' };
}
