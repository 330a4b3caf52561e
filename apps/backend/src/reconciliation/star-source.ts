import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { gatewayApi } from '@wordgame/contracts';
import { withServiceToken } from '@wordgame/h2-unary';
import { z } from 'zod';
import { failoverTransport } from '../cluster/index.js';

/** One stars transaction as the bot reports it (get_star_transactions' compact JSON). */
export interface StarTransaction {
  id: string;
  amount: bigint;
  date: Date;
  kind: 'payment' | 'refund' | 'other';
  userId: bigint | null;
  payload: string;
}

/**
 * Where reconciliation reads the platform's stars transactions: one page of getStarTransactions,
 * `offset` transactions skipped, in whatever order the platform answers (documented chronological;
 * readStarsSince assumes neither order).
 */
export interface StarTransactionSource {
  page(offset: number, limit: number): Promise<StarTransaction[]>;
}

const pageSchema = z.object({
  transactions: z
    .array(
      z.object({
        id: z.string().min(1),
        amount: z.number().int().nonnegative(),
        date: z.number().int().nonnegative(),
        kind: z.enum(['payment', 'refund', 'other']),
        user_id: z.number().int().optional(),
        payload: z.string().optional(),
      }),
    )
    .max(100),
});

/**
 * The bot's getStarTransactions through the gateway's BotCommandService (get_star_transactions).
 * Any outcome but delivered, or an answer of the wrong shape, throws: a run that cannot see the
 * platform's side fails rather than report the whole ledger as unmatched.
 */
export function gatewayStarSource(baseUrls: readonly string[], token: string, timeoutMs: number): StarTransactionSource {
  const transportFor = (baseUrl: string) => createConnectTransport({ baseUrl, httpVersion: '2', interceptors: [withServiceToken(token)] });
  const client = createClient(gatewayApi.BotCommandService, failoverTransport(baseUrls, transportFor));
  return {
    async page(offset, limit) {
      const res = await client.send(
        { command: { payload: { case: 'getStarTransactions', value: { offset: BigInt(offset), limit: BigInt(limit) } } }, timeoutMs },
        { timeoutMs: timeoutMs + 2_000 },
      );
      if (res.outcome !== gatewayApi.Outcome.DELIVERED) {
        throw new Error(`get_star_transactions: ${gatewayApi.Outcome[res.outcome] ?? 'unknown'} ${res.error}`.trim());
      }
      return parseStarPage(res.result);
    },
  };
}

/** Parses get_star_transactions' Ack.result. */
export function parseStarPage(result: string): StarTransaction[] {
  const parsed = pageSchema.safeParse(JSON.parse(result) as unknown);
  if (!parsed.success) throw new Error(`get_star_transactions: unexpected answer shape at ${parsed.error.issues[0]?.path.join('.') ?? ''}`);
  return parsed.data.transactions.map((t) => ({
    id: t.id,
    amount: BigInt(t.amount),
    date: new Date(t.date * 1000),
    kind: t.kind,
    userId: t.user_id === undefined ? null : BigInt(t.user_id),
    payload: t.payload ?? '',
  }));
}
