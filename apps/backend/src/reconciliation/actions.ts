import { creditOrder } from '../ledger/postings/index.js';
import { ALREADY_REFUNDED, ProviderError, settleFromProvider, shopOf, starRefundVerdict, type PaymentDeps } from '../payments/index.js';
import { DomainError } from '../rpc/errors.js';
import { resolveMismatch, type MismatchRow } from './store.js';

/** What an operator can do about a mismatch. */
export type MismatchAction = 'refund' | 'credit' | 'resolve';

/** What an action did: the resolution recorded and a detail (refund id, order id, note). */
export interface ActionResult {
  outcome: string;
  detail: string;
}

/** The registry codes a reconciliation action fails with. */
type ActionErrorCode = 'invalid_action' | 'unknown_mismatch' | 'already_resolved' | 'action_not_allowed' | 'action_failed';

/** A reconciliation action's failure: a registry code and a message safe to show the operator. */
export function actionError(code: ActionErrorCode, message: string): DomainError {
  return new DomainError(code, message);
}

/** Reads the action name; anything else is invalid_action. */
export function parseAction(raw: string): MismatchAction {
  if (raw === 'refund' || raw === 'credit' || raw === 'resolve') return raw;
  throw actionError('invalid_action', 'action must be refund, credit or resolve');
}

/**
 * Carries out an operator's action on one open mismatch through the existing money paths, then
 * records the resolution (once: a second action on the same row is already_resolved).
 * - `refund` (money taken, not credited): card — a provider refund of the whole amount the provider
 *   took, keyed `reconcile-<payment id>` so pressing again replays it; stars — refund_star_payment
 *   to the payer (the platform refunds a charge at most once).
 * - `credit` (money taken for a known order): card — the payment is re-read and settled exactly as
 *   a notification would be (guards included); stars — the order is credited with the charge, only
 *   when the charged amount equals the order's.
 * - `resolve`: any kind; reviewed, nothing moved.
 * Nothing is recorded when the money path refuses or its outcome is unknown.
 */
export async function actOnMismatch(
  deps: PaymentDeps,
  row: MismatchRow,
  action: MismatchAction,
  operatorId: bigint,
): Promise<ActionResult> {
  if (row.resolved_at !== null) throw actionError('already_resolved', `this mismatch was resolved already (${row.resolution ?? ''})`);
  if (action !== 'resolve' && row.kind !== 'taken_not_credited') {
    throw actionError('action_not_allowed', `${action} applies to money taken but not credited; resolve this row once it is dealt with`);
  }
  const result =
    action === 'resolve' ? { outcome: 'resolved', detail: '' } : action === 'refund' ? await refund(deps, row) : await credit(deps, row);
  if (!(await resolveMismatch(deps.db, row.id, `${result.outcome}${result.detail ? `:${result.detail}` : ''}`, operatorId, deps.now()))) {
    throw actionError('already_resolved', 'this mismatch was resolved meanwhile');
  }
  return result;
}

async function refund(deps: PaymentDeps, row: MismatchRow): Promise<ActionResult> {
  if (row.provider_amount === null) throw actionError('action_not_allowed', 'the amount taken is not known');
  if (row.rail === 'stars') {
    if (row.payer_ref === null || !/^[1-9]\d{0,15}$/.test(row.payer_ref))
      throw actionError('action_not_allowed', 'the payer of this charge is not known');
    const verdict = starRefundVerdict(await deps.bot.refundStarPayment(BigInt(row.payer_ref), row.payment_ref), ALREADY_REFUNDED);
    if (verdict.kind === 'refused')
      throw actionError('action_not_allowed', `the platform refused this refund (${verdict.error}); nothing was recorded`);
    if (verdict.kind === 'unknown')
      throw actionError(
        'action_failed',
        `the payment bot did not confirm the refund (${verdict.error}); nothing was recorded, press again`,
      );
    return { outcome: 'refunded', detail: row.payment_ref };
  }
  const { card, shop } = cardShop(deps, row);
  try {
    const made = await card.provider.createRefund(
      shop,
      {
        paymentId: row.payment_ref,
        amountMinor: row.provider_amount,
        currency: row.provider_currency ?? '',
        description: 'Returned: payment not credited',
      },
      `reconcile-${row.payment_ref}`,
    );
    if (made.status === 'canceled')
      throw actionError('action_not_allowed', `the provider canceled refund ${made.id}; nothing was recorded`);
    return { outcome: made.status === 'succeeded' ? 'refunded' : 'refund_pending', detail: made.id };
  } catch (err: unknown) {
    throw providerFailure(err);
  }
}

async function credit(deps: PaymentDeps, row: MismatchRow): Promise<ActionResult> {
  if (row.order_id === null) throw actionError('action_not_allowed', 'no order is known for this payment: refund it instead');
  const order = await deps.db.selectFrom('orders').selectAll().where('id', '=', row.order_id).executeTakeFirst();
  if (!order) throw actionError('action_not_allowed', 'the order no longer exists');
  if (row.rail === 'stars') {
    if (row.provider_amount !== order.amount)
      throw actionError('action_not_allowed', 'the charged amount differs from the order: refund it instead');
    const payer = row.payer_ref !== null && /^[1-9]\d{0,15}$/.test(row.payer_ref) ? { platformUserId: BigInt(row.payer_ref) } : {};
    const paid = await deps.db
      .transaction()
      .execute((trx) => creditOrder(trx, order.id, { platformChargeId: row.payment_ref, ...payer }, deps.now()));
    if (!paid) throw actionError('action_not_allowed', 'the order could not be credited (already settled or failed)');
    return { outcome: 'credited', detail: order.id };
  }
  const { card, shop } = cardShop(deps, row);
  try {
    const payment = await card.provider.getPayment(shop, row.payment_ref);
    const settled = await settleFromProvider(deps, order, shop, payment);
    if (settled.disposition !== 'handled' || (settled.detail !== 'credited' && settled.detail !== 'already_settled')) {
      throw actionError('action_not_allowed', `the payment was not credited (${settled.detail})`);
    }
    return { outcome: 'credited', detail: order.id };
  } catch (err: unknown) {
    throw providerFailure(err);
  }
}

function cardShop(deps: PaymentDeps, row: MismatchRow) {
  const card = deps.card;
  const shop = card ? shopOf(card, row.shop) : undefined;
  if (!card || !shop) throw actionError('action_not_allowed', 'the card shop of this payment is not configured');
  return { card, shop };
}

function providerFailure(err: unknown): unknown {
  if (!(err instanceof ProviderError)) return err;
  return err.failure === 'unavailable'
    ? actionError('action_failed', `the provider did not answer (${err.status ?? 'no answer'}); nothing was recorded, press again`)
    : actionError('action_not_allowed', `the provider refused: ${err.detail.slice(0, 200)}`);
}
