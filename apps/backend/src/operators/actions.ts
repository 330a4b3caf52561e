import { ConnectError } from '@connectrpc/connect';
import type { Kysely } from 'kysely';
import { upsertProduct, type Product, validateDraft, type RawDraft } from '../catalog/index.js';
import type { DB } from '../db/index.js';
import { refundOrder, type ConsoleRefund, type PaymentDeps } from '../payments/index.js';
import { DomainError, ERROR_CODE_HEADER } from '../rpc/index.js';
import { audit } from '../operator-audit/index.js';
import { requireRole } from './sessions.js';

/** The machine code of a failure, for the audit row. */
export function codeOf(err: unknown): string {
  if (err instanceof DomainError) return err.code;
  if (err instanceof ConnectError) return err.metadata.get(ERROR_CODE_HEADER) ?? 'error';
  return 'internal';
}

/**
 * A refund on behalf of the operator named by the caller's x-operator-session token: refused
 * without a `refunder` session, and audited whatever the outcome. The one door for every
 * refund an operator asks for (console page or operator API).
 */
export async function operatorRefund(
  db: Kysely<DB>,
  payments: PaymentDeps,
  headers: Headers,
  orderId: string | null,
): Promise<ConsoleRefund> {
  const operator = await requireRole(db, headers, 'refunder', 'refund', payments.now());
  try {
    const r = await refundOrder(payments, orderId, operator.id);
    await audit(db, { operatorId: operator.id, action: 'refund', target: `order:${r.orderId}`, outcome: r.status, detail: r.refundId });
    return r;
  } catch (err: unknown) {
    await audit(db, {
      operatorId: operator.id,
      action: 'refund',
      target: `order:${(orderId ?? '').slice(0, 64)}`,
      outcome: 'failed',
      detail: codeOf(err),
    });
    throw err;
  }
}

/**
 * A catalog change on behalf of the operator named by the caller's x-operator-session token:
 * refused without a `catalog_editor` session, validated (a card price only in one of
 * `cardCurrencies`, what the configured card shops settle), and audited whatever the outcome.
 */
export async function operatorUpsertProduct(
  db: Kysely<DB>,
  headers: Headers,
  raw: RawDraft,
  now: Date,
  cardCurrencies: readonly string[],
): Promise<Product> {
  const operator = await requireRole(db, headers, 'catalog_editor', 'catalog_upsert', now);
  const target = raw.id === 0n ? 'product:new' : `product:${raw.id}`;
  try {
    const product = await upsertProduct(db, validateDraft(raw, cardCurrencies), now);
    await audit(db, {
      operatorId: operator.id,
      action: 'catalog_upsert',
      target: `product:${product.id}`,
      outcome: 'ok',
      detail: raw.id === 0n ? 'created' : 'replaced',
    });
    return product;
  } catch (err: unknown) {
    await audit(db, { operatorId: operator.id, action: 'catalog_upsert', target, outcome: 'refused', detail: codeOf(err) });
    throw err;
  }
}
