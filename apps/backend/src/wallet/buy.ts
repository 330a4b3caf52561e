import type { Kysely } from 'kysely';
import type { DB } from '../db/index.js';
import { gate, type GateDecision } from '../gate/index.js';
import { type Caller, DomainError } from '../rpc/index.js';
import { type BuyRow, runBuy, runBuyUnderLocks } from '../ledger/index.js';
import { deserializePurchase, type PurchaseResult } from './purchase-record.js';

const KEY = /^[\x21-\x7e]{1,128}$/;

/** Validates an Idempotency-Key: empty = none; else 1-128 printable ASCII characters. */
export function idempotencyKey(raw: string | null): string | null {
  if (raw === null || raw === '') return null;
  if (!KEY.test(raw)) throw new DomainError('invalid_idempotency_key', 'Idempotency-Key must be 1-128 printable ASCII characters');
  return raw;
}

const REFUSALS: Record<string, [DomainError['code'], string]> = {
  caller_required: ['caller_required', 'the caller account does not exist'],
  account_suspended: ['account_suspended', 'the account is suspended'],
  idempotency_key_reused: ['idempotency_key_reused', 'this Idempotency-Key was used for another product'],
  unknown_product: ['unknown_product', 'no such active product'],
  not_sold_for_chips: ['not_sold_for_chips', 'this product is not sold for chips'],
  insufficient_chips: ['insufficient_chips', 'not enough chips for this product'],
  offer_not_available: ['offer_not_available', 'this offer is not available now'],
  purchase_limit_reached: ['purchase_limit_reached', 'you have bought this product as often as it may be bought for now'],
};

/**
 * wallet.buy: spends chips on a value product in one transaction — the ledger's buy statement, one round trip
 * that refuses a blocked account (its row locked FOR SHARE first), locks the account's segments, claims the idempotency key (a key already used returns its
 * stored first result), draws the price in gate order, appends one `spend` ledger operation per
 * segment drawn and gives the product's benefits to the origin that funded the largest share.
 * When a concurrent writer to the same account got in first (`stale`), it runs again inside a
 * transaction that takes the account's locks before the statement's snapshot.
 */
export async function buy(
  db: Kysely<DB>,
  caller: Caller,
  productId: bigint,
  rawKey: string | null,
  now: Date,
): Promise<PurchaseResult & { replayed: boolean }> {
  const decision = gate({ ...caller.platform, emailConfirmed: false });
  if (!decision.canSpend) {
    throw new DomainError(
      'purchase_forbidden',
      decision.frozen ? 'purchases are not available in this app on this device' : 'this session may not spend or buy',
    );
  }
  if (productId <= 0n) throw new DomainError('invalid_product_id', 'product_id must be a positive integer');
  const values = parameters(decision, caller.accountId, productId, idempotencyKey(rawKey), now);

  let row = await runBuy(db, values);
  if (isStale(row)) {
    row = await db.transaction().execute((trx) => runBuyUnderLocks(trx, caller.accountId, now, values));
    if (isStale(row)) throw new Error('wallet.buy saw a changed row while holding the account locks');
  }
  return outcome(row, productId);
}

function parameters(decision: GateDecision, accountId: bigint, productId: bigint, key: string | null, now: Date): unknown[] {
  const flags = { spendOrder: decision.spendOrder, canSpend: decision.canSpend, frozen: decision.frozen, trusted: decision.trusted };
  return [accountId, productId, key, [...decision.spendOrder], [...decision.visibleSegments], JSON.stringify(flags), now];
}

/** Stale: the statement saw a concurrent change, or its key claim lost a race; nothing was written. */
function isStale(row: BuyRow): boolean {
  return row.status === 'stale' || (row.status === 'ok' && BigInt(row.went) === 0n);
}

function outcome(row: BuyRow, productId: bigint): PurchaseResult & { replayed: boolean } {
  if (row.status === 'ok' || row.status === 'replay') {
    if (row.result === null) throw new Error('a committed buy request has no stored result');
    return { ...deserializePurchase(row.result), replayed: row.status === 'replay' };
  }
  const refusal = REFUSALS[row.status];
  if (!refusal) throw new Error(`wallet.buy statement answered unknown status ${row.status}`);
  const [code, message] = refusal;
  throw new DomainError(code, code === 'unknown_product' ? `no active product ${productId}` : message);
}
