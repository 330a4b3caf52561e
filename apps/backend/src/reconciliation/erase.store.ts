import type { Transaction } from 'kysely';
import type { DB } from '../db/index.js';

/**
 * Erases the payer references a deleted account left on reconciliation findings, in the deletion's
 * transaction: a finding about one of its orders, or naming one of its platform user ids as payer,
 * keeps its amounts, charge and refund ids (the books must still agree) but loses `payer_ref`.
 */
export async function erasePayerRefs(trx: Transaction<DB>, accountId: bigint, externalIds: readonly string[]): Promise<void> {
  await trx
    .updateTable('reconciliation_mismatches')
    .set({ payer_ref: null })
    .where((eb) =>
      eb.or([
        ...(externalIds.length > 0 ? [eb('payer_ref', 'in', [...externalIds])] : []),
        eb('order_id', 'in', eb.selectFrom('orders').select('orders.id').where('orders.account_id', '=', accountId)),
      ]),
    )
    .execute();
}
