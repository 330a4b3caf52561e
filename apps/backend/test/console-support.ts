import { randomUUID } from 'node:crypto';
import type { Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import type { Kysely } from 'kysely';
import type { DB } from '../src/db/schema.js';
import type { LedgerKind } from '../src/ledger/ledger.table.js';
import type { OperatorRole } from '../src/operators/operators.table.js';
import type { Segment } from '../src/gate/context.js';
import { upsertOperator } from '../src/operators/operators.store.js';
import { formatAmount } from '../src/payments/card/provider/money.js';

export const PASSWORD = 'correct horse battery staple';

/** Creates an operator with `roles` and signs it in; answers the session token. */
export async function operatorToken(
  db: Kysely<DB>,
  console: Client<typeof backendApi.ConsoleService>,
  login: string,
  roles: OperatorRole[],
): Promise<string> {
  await upsertOperator(db, login, PASSWORD, roles);
  const res = await console.signIn({
    body: encodeTable((b) => fb.OperatorSignIn.createOperatorSignIn(b, b.createString(login), b.createString(PASSWORD))),
  });
  return decodeTable(
    res.body,
    (bb) => fb.OperatorGrant.getRootAsOperatorGrant(bb),
    (t) => t.token() ?? '',
  );
}

/** Call options carrying a console session token. */
export function asOperator(token: string): { headers: Record<string, string> } {
  return { headers: { 'x-operator-session': token } };
}

/** A wire filter as the gateway sends it. */
export interface FilterSpec {
  from?: Date;
  to?: Date;
  wallet?: string;
  rail?: string;
  kind?: string;
  account?: bigint;
}

export function writeFilter(b: Parameters<Parameters<typeof encodeTable>[0]>[0], f: FilterSpec): number {
  const wallet = b.createString(f.wallet ?? '');
  const rail = b.createString(f.rail ?? '');
  const kind = b.createString(f.kind ?? '');
  const secs = (d: Date | undefined) => (d ? BigInt(Math.floor(d.getTime() / 1000)) : 0n);
  return fb.LedgerFilter.createLedgerFilter(b, secs(f.from), secs(f.to), wallet, rail, kind, f.account ?? 0n);
}

export function ledgerQuery(
  f: FilterSpec,
  cursor: { createdUs: bigint; id: bigint } | null,
  limit: number,
  withTotals: boolean,
): Uint8Array {
  return encodeTable((b) =>
    fb.LedgerQuery.createLedgerQuery(b, writeFilter(b, f), cursor?.createdUs ?? 0n, cursor?.id ?? 0n, limit, withTotals),
  );
}

/** A decoded LedgerPage. */
export function readPage(body: Uint8Array) {
  return decodeTable(
    body,
    (bb) => fb.LedgerPage.getRootAsLedgerPage(bb),
    (t) => ({
      rows: Array.from({ length: t.rowsLength() }, (_, i) => {
        const r = t.rows(i);
        return {
          id: r?.id() ?? 0n,
          createdUs: r?.createdAtUs() ?? 0n,
          kind: r?.kind() ?? '',
          refunded: r?.refunded() ?? false,
          orderId: r?.orderId() ?? '',
        };
      }),
      totals: Array.from({ length: t.totalsLength() }, (_, i) => ({
        currency: t.totals(i)?.currency() ?? '',
        amount: t.totals(i)?.amount() ?? 0n,
        operations: t.totals(i)?.operations() ?? 0n,
      })),
      daily: Array.from({ length: t.dailyLength() }, (_, i) => ({
        day: t.daily(i)?.dayUnix() ?? 0n,
        currency: t.daily(i)?.currency() ?? '',
        amount: t.daily(i)?.amount() ?? 0n,
      })),
      matched: t.matched(),
      hasMore: t.hasMore(),
      next: t.hasMore() ? { createdUs: t.nextCreatedUs(), id: t.nextId() } : null,
    }),
  );
}

/** One ledger row to seed (directly: the console only reads the ledger). */
export interface SeedRow {
  account: bigint;
  kind: LedgerKind;
  at: Date;
  segment?: Segment | null;
  origin?: Segment | null;
  rail?: string | null;
  chips?: bigint;
  money?: bigint | null;
  currency?: string | null;
  hints?: bigint;
  orderId?: string | null;
}

export async function seedLedger(db: Kysely<DB>, rows: readonly SeedRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('ledger_operations')
    .values(
      rows.map((r) => ({
        account_id: r.account,
        kind: r.kind,
        segment: r.segment === undefined ? (r.chips ? 'direct' : null) : r.segment,
        benefit_origin: r.origin ?? null,
        rail: r.rail ?? null,
        provider: r.rail ?? null,
        chips_delta: r.chips ?? 0n,
        money_minor: r.money ?? null,
        currency: r.currency ?? null,
        hints_delta: r.hints ?? 0n,
        created_at: r.at,
        order_id: r.orderId ?? null,
      })),
    )
    .execute();
}

/**
 * A paid card order as crediting leaves it: a succeeded payment at the provider emulator, the
 * order row (paid), the funded segment's balance and the purchase ledger row.
 */
export async function paidCardOrder(
  db: Kysely<DB>,
  provider: { apiUrl: string; shopId: string; secretKey: string; succeed(id: string): Promise<unknown> },
  account: bigint,
  product: bigint,
  amount: bigint,
  chips: bigint,
): Promise<string> {
  const orderId = randomUUID();
  const res = await fetch(`${provider.apiUrl}/payments`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${provider.shopId}:${provider.secretKey}`).toString('base64')}`,
      'idempotence-key': orderId,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      amount: { value: formatAmount(BigInt(amount), 'RUB'), currency: 'RUB' },
      capture: true,
      confirmation: { type: 'redirect', return_url: 'https://game.example/wallet' },
      description: 'Chip pack',
      metadata: { order_id: orderId },
    }),
  });
  if (res.status !== 200) throw new Error(`emulator refused the payment: ${res.status} ${await res.text()}`);
  const payment = (await res.json()) as { id: string };
  await provider.succeed(payment.id);
  const now = new Date();
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('orders')
      .values({
        id: orderId,
        account_id: account,
        product_id: product,
        title: 'Chip pack',
        rail: 'card',
        provider: 'yookassa',
        shop: provider.shopId,
        segment: 'direct',
        amount,
        currency: 'RUB',
        chips,
        state: 'paid',
        created_at: now,
        expires_at: new Date(now.getTime() + 1_800_000),
        paid_at: now,
        provider_payment_id: payment.id,
      })
      .execute();
    await trx
      .insertInto('wallet_segments')
      .values({ account_id: account, segment: 'direct', balance: chips })
      .onConflict((oc) =>
        oc.columns(['account_id', 'segment']).doUpdateSet((eb) => ({ balance: eb('wallet_segments.balance', '+', chips) })),
      )
      .execute();
    await trx
      .insertInto('ledger_operations')
      .values({
        account_id: account,
        kind: 'purchase',
        segment: 'direct',
        rail: 'yookassa',
        provider: 'yookassa',
        product_id: product,
        order_id: orderId,
        chips_delta: chips,
        money_minor: amount,
        currency: 'RUB',
        created_at: now,
      })
      .execute();
  });
  return orderId;
}
