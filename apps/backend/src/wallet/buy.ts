import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { benefitsOf } from '../catalog/product.js';
import { productForSpend } from '../catalog/repository.js';
import { gate } from '../gate/gate.js';
import { appendOperations } from '../ledger/repository.js';
import type { Caller } from '../rpc/caller.js';
import { DomainError } from '../rpc/errors.js';
import { benefitOriginOf, drawInOrder } from './draw.js';
import { deserializePurchase, serializePurchase, type PurchaseResult } from './purchase-record.js';
import { addBenefits, debitSegment, readBenefits, segmentsForUpdate } from './repository.js';
import { projectWallet } from './view.js';

const KEY = /^[\x21-\x7e]{1,128}$/;

/** Validates an Idempotency-Key: empty = none; else 1-128 printable ASCII characters. */
export function idempotencyKey(raw: string | null): string | null {
  if (raw === null || raw === '') return null;
  if (!KEY.test(raw)) throw new DomainError('invalid_idempotency_key', 'Idempotency-Key must be 1-128 printable ASCII characters');
  return raw;
}

/**
 * wallet.buy: spends chips on a value product in one transaction. The account's segment rows are
 * locked first (so spends of one account serialise), then the idempotency key is claimed (a key
 * already used returns its stored first result), the price is drawn in gate order, one `spend`
 * ledger operation is appended per segment drawn, and the product's benefits go to the origin that
 * funded the largest share (carried on that origin's operation).
 */
export async function buy(db: Kysely<DB>, caller: Caller, productId: bigint, rawKey: string | null): Promise<PurchaseResult & { replayed: boolean }> {
  const decision = gate({ ...caller.platform, emailConfirmed: false });
  if (!decision.canSpend) {
    throw new DomainError('purchase_forbidden', decision.frozen ? 'purchases are not available in this app on this device' : 'this session may not spend or buy');
  }
  if (productId <= 0n) throw new DomainError('invalid_product_id', 'product_id must be a positive integer');
  const key = idempotencyKey(rawKey);
  const accountId = caller.accountId;

  return db.transaction().execute(async (trx) => {
    const balances = await segmentsForUpdate(trx, accountId);
    if (balances.size === 0) throw new DomainError('caller_required', 'the caller account does not exist');

    if (key !== null) {
      const claimed = await trx
        .insertInto('buy_requests')
        .values({ account_id: accountId, idempotency_key: key, product_id: productId, result: null })
        .onConflict((oc) => oc.columns(['account_id', 'idempotency_key']).doNothing())
        .returning('product_id')
        .executeTakeFirst();
      if (!claimed) {
        const prior = await trx
          .selectFrom('buy_requests')
          .select(['product_id', 'result'])
          .where('account_id', '=', accountId)
          .where('idempotency_key', '=', key)
          .executeTakeFirstOrThrow();
        if (prior.product_id !== productId) throw new DomainError('idempotency_key_reused', 'this Idempotency-Key was used for another product');
        if (prior.result === null) throw new Error('a committed buy request has no stored result');
        return { ...deserializePurchase(prior.result), replayed: true };
      }
    }

    const product = await productForSpend(trx, productId);
    if (!product) throw new DomainError('unknown_product', `no active product ${productId}`);
    if (product.chipsPrice === null) throw new DomainError('not_sold_for_chips', 'this product is not sold for chips');
    const draws = drawInOrder(balances, decision.spendOrder, product.chipsPrice);
    if (draws === null) throw new DomainError('insufficient_chips', 'not enough chips for this product');

    const origin = benefitOriginOf(draws);
    const grant = benefitsOf(product.atoms);
    const now = new Date();
    for (const d of draws) {
      await debitSegment(trx, accountId, d.segment, d.amount);
      balances.set(d.segment, (balances.get(d.segment) ?? 0n) - d.amount);
    }
    await appendOperations(
      trx,
      draws.map((d) => ({
        account_id: accountId,
        kind: 'spend' as const,
        segment: d.segment,
        product_id: productId,
        chips_delta: -d.amount,
        created_at: now,
        ...(d.segment === origin
          ? { benefit_origin: origin, hints_delta: grant.hints, no_ads_days: grant.noAdsDays, no_ads_forever: grant.noAdsForever }
          : {}),
      })),
    );
    if (grant.hints > 0n || grant.noAdsDays > 0n || grant.noAdsForever) await addBenefits(trx, accountId, origin, grant, now);

    const result: PurchaseResult = {
      productId,
      price: product.chipsPrice,
      draws,
      benefitOrigin: origin,
      wallet: projectWallet(decision, balances, await readBenefits(trx, accountId)),
    };
    if (key !== null) {
      await trx
        .updateTable('buy_requests')
        .set({ result: serializePurchase(result) })
        .where('account_id', '=', accountId)
        .where('idempotency_key', '=', key)
        .execute();
    }
    return { ...result, replayed: false };
  });
}
