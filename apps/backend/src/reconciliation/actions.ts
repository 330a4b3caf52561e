import type { MismatchAction } from './reconciliation.table.js';
import {
  creditStarsCharge,
  ProviderError,
  refundUncreditedCard,
  refundUncreditedStars,
  settleFromProvider,
  shopOf,
  type ChargeAction,
  type PaymentDeps,
} from '../payments/index.js';
import { DomainError } from '../rpc/index.js';
import { utcText } from '../support/index.js';
import { orderById } from './books.store.js';
import {
  claimMismatch,
  finishMismatch,
  leaveMismatch,
  mismatchState,
  releaseMismatch,
  resolveUnclaimed,
  type MismatchClaim,
  type MismatchStateRow,
} from './claims.store.js';
import { mismatchById, type MismatchRow } from './reconciliation.store.js';

export type { MismatchAction } from './reconciliation.table.js';

/** What an action did: the resolution recorded and a detail (refund id, order id, note). */
export interface ActionResult {
  outcome: string;
  detail: string;
}

/** The registry codes a reconciliation action fails with. */
type ActionErrorCode =
  | 'invalid_action'
  | 'unknown_mismatch'
  | 'already_resolved'
  | 'action_in_progress'
  | 'action_not_allowed'
  | 'action_failed';

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
 * How one attempt of a money action ended: done; refused with nothing moved (the row is free
 * again); or unknown, the money may have moved (the row stays with this action).
 */
type Attempt = { kind: 'done'; result: ActionResult } | { kind: 'refused'; error: DomainError } | { kind: 'unknown'; error: DomainError };

const refused = (code: ActionErrorCode, message: string): Attempt => ({ kind: 'refused', error: actionError(code, message) });

/** How many times a press re-reads a row that changed under it before giving up. */
const CLAIM_TRIES = 3;

/**
 * Carries out an operator's action on one open mismatch through the existing money paths. Exactly
 * one action per row: before any provider or platform call the row is claimed for the action in
 * PostgreSQL (claims.store.ts), so of presses on any replica at once one acts, and every other press is
 * told what the winner did or is doing, and who (already_resolved, action_in_progress), without a
 * call of its own. The outcome is then recorded on the row; a refusal that moved nothing frees the
 * row again; an unknown outcome leaves it with its action, which alone may be pressed again.
 * - `refund` (money taken, not credited): decided by the payments feature under the order's lock
 *   before any call (refundUncreditedCard, refundUncreditedStars): an order credited meanwhile is
 *   refused ("use the ledger's refund"), and from the decision on no path credits it. Card — a
 *   provider refund of the whole amount the provider took, keyed `reconcile-<payment id>` so pressing
 *   again replays it; stars — the charge is recorded to be returned and refund_star_payment sent to
 *   the payer (the platform refunds a charge at most once).
 * - `credit` (money taken for a known order): card — the payment is re-read and settled exactly as
 *   a notification would be (guards included; never while a refund of it is in flight); stars — the
 *   order is credited with the charge under the order's lock (creditStarsCharge), only when the
 *   charged amount equals the order's and the charge is not being returned.
 * - `resolve`: any kind; reviewed, nothing moved (one statement, only while no action owns the row).
 */
export async function actOnMismatch(deps: PaymentDeps, id: bigint, action: MismatchAction, operatorId: bigint): Promise<ActionResult> {
  const row = await mismatchById(deps.db, id);
  if (!row) throw actionError('unknown_mismatch', 'no such mismatch');
  if (action === 'resolve') {
    await whenFree(deps, id, async () => ((await resolveUnclaimed(deps.db, id, operatorId, deps.now())) ? true : null));
    return { outcome: 'resolved', detail: '' };
  }
  if (row.kind !== 'taken_not_credited') {
    throw actionError('action_not_allowed', `${action} applies to money taken but not credited; resolve this row once it is dealt with`);
  }
  precheck(deps, row, action);
  const claim = await whenFree<MismatchClaim>(deps, id, () =>
    claimMismatch(deps.db, id, action, operatorId, deps.now(), deps.claimLeaseMs),
  );
  let attempt: Attempt;
  try {
    attempt = action === 'refund' ? await refund(deps, row, operatorId) : await credit(deps, row);
  } catch (err: unknown) {
    await leaveMismatch(deps.db, claim, deps.now());
    throw err;
  }
  if (attempt.kind === 'refused') {
    await releaseMismatch(deps.db, claim);
    throw attempt.error;
  }
  if (attempt.kind === 'unknown') {
    await leaveMismatch(deps.db, claim, deps.now());
    throw attempt.error;
  }
  const { outcome, detail } = attempt.result;
  await finishMismatch(deps.db, id, action, `${outcome}${detail ? `:${detail}` : ''}`, operatorId, deps.now());
  return attempt.result;
}

/**
 * Runs `take` (a conditional claim or resolve) until it succeeds; when another action owns the row
 * or resolved it, throws what that action did instead. A row freed between the two reads is tried
 * again, a few times.
 */
async function whenFree<T>(deps: PaymentDeps, id: bigint, take: () => Promise<T | null>): Promise<T> {
  for (let tries = 1; ; tries += 1) {
    const taken = await take();
    if (taken !== null) return taken;
    const row = await mismatchState(deps.db, id);
    if (!row) throw actionError('unknown_mismatch', 'no such mismatch');
    const lost = lostTo(stateOf(row), deps.now());
    if (lost) throw lost;
    if (tries >= CLAIM_TRIES)
      throw actionError('action_in_progress', 'other actions on this mismatch keep changing it; reload the report and press again');
  }
}

const NOUN: Record<MismatchAction, string> = { refund: 'a refund', credit: 'a credit of the order', resolve: 'marking it resolved' };
const BUTTON: Record<MismatchAction, string> = { refund: 'Refund', credit: 'Credit the order', resolve: 'Mark resolved' };

/** Who owns a mismatch and how it ended, operators named by login (or `operator #id` once the operator row is gone). */
interface MismatchState {
  resolution: string | null;
  resolvedAt: Date | null;
  resolvedBy: string | null;
  action: MismatchAction | null;
  actionBy: string | null;
  actionAt: Date | null;
  actionUntil: Date | null;
}

function stateOf(row: MismatchStateRow): MismatchState {
  const name = (login: string | null, id: bigint | null) => login ?? (id === null ? null : `operator #${id}`);
  return {
    resolution: row.resolution,
    resolvedAt: row.resolved_at,
    resolvedBy: name(row.resolver, row.resolved_by),
    action: row.action,
    actionBy: name(row.actor, row.action_by),
    actionAt: row.action_at,
    actionUntil: row.action_until,
  };
}

/** What a press that found the row taken is told: what the owning action did or is doing, and who; null when the row is free. */
function lostTo(state: MismatchState, now: Date): DomainError | null {
  if (state.resolvedAt !== null) {
    return actionError(
      'already_resolved',
      `this mismatch was already ${resolutionText(state.resolution)} by ${state.resolvedBy ?? 'an operator'} at ${utcText(state.resolvedAt)}`,
    );
  }
  if (state.action === null || state.actionAt === null || state.actionUntil === null) return null;
  const who = `${NOUN[state.action]} by ${state.actionBy ?? 'an operator'}`;
  if (state.actionUntil.getTime() > now.getTime()) {
    return actionError(
      'action_in_progress',
      `${who} is in progress since ${utcText(state.actionAt)}; reload the report to see its outcome`,
    );
  }
  return actionError(
    'action_in_progress',
    `${who} at ${utcText(state.actionAt)} was not confirmed and may have happened; only "${BUTTON[state.action]}" can finish this row (pressing it again cannot move the money twice)`,
  );
}

/** A recorded resolution (`credited:<order id>`, `refunded:<id>`, `refund_pending:<id>`, `resolved`) in words. */
function resolutionText(resolution: string | null): string {
  const [outcome = '', detail = ''] = (resolution ?? '').split(/:(.*)/s);
  switch (outcome) {
    case 'credited':
      return `credited (order ${detail})`;
    case 'refunded':
      return `refunded (${detail})`;
    case 'refund_pending':
      return `refunded (provider refund ${detail}, still pending at the provider)`;
    case 'refund_queued':
      return `being returned to the payer (charge ${detail}, by the automatic stars refund)`;
    case 'resolved':
      return 'marked resolved';
    default:
      return `resolved (${resolution ?? ''})`;
  }
}

/** Refusals that follow from the row alone, before anything is claimed. */
function precheck(deps: PaymentDeps, row: MismatchRow, action: 'refund' | 'credit'): void {
  if (action === 'refund') {
    if (row.provider_amount === null) throw actionError('action_not_allowed', 'the amount taken is not known');
    if (row.rail === 'stars') {
      if (payerOf(row) === null) throw actionError('action_not_allowed', 'the payer of this charge is not known');
      return;
    }
  } else if (row.order_id === null) {
    throw actionError('action_not_allowed', 'no order is known for this payment: refund it instead');
  }
  if (row.rail === 'card') cardShop(deps, row);
}

function payerOf(row: MismatchRow): bigint | null {
  return row.payer_ref !== null && /^[1-9]\d{0,15}$/.test(row.payer_ref) ? BigInt(row.payer_ref) : null;
}

/** A money action's outcome as the payments feature decided it, as this row's attempt. */
function attemptOf(action: ChargeAction): Attempt {
  switch (action.kind) {
    case 'done':
      return { kind: 'done', result: { outcome: action.outcome, detail: action.detail } };
    case 'refused':
      return refused(action.reason === 'in_progress' ? 'action_in_progress' : 'action_not_allowed', action.message);
    case 'unknown':
      return { kind: 'unknown', error: actionError('action_failed', action.message) };
  }
}

async function refund(deps: PaymentDeps, row: MismatchRow, operatorId: bigint): Promise<Attempt> {
  if (row.rail === 'stars') {
    const payer = payerOf(row);
    if (payer === null || row.provider_amount === null) return refused('action_not_allowed', 'the payer of this charge is not known');
    return attemptOf(
      await refundUncreditedStars(deps, {
        platformChargeId: row.payment_ref,
        orderId: row.order_id,
        payerId: payer,
        amount: row.provider_amount,
      }),
    );
  }
  return attemptOf(await refundUncreditedCard(deps, { shopId: row.shop, paymentId: row.payment_ref, operatorId }));
}

async function credit(deps: PaymentDeps, row: MismatchRow): Promise<Attempt> {
  if (row.order_id === null) return refused('action_not_allowed', 'no order is known for this payment: refund it instead');
  if (row.rail === 'stars') {
    return attemptOf(
      await creditStarsCharge(deps, {
        platformChargeId: row.payment_ref,
        orderId: row.order_id,
        payerId: payerOf(row),
        amount: row.provider_amount ?? -1n,
        occurredAt: row.occurred_at,
      }),
    );
  }
  const order = await orderById(deps.db, row.order_id);
  if (!order) return refused('action_not_allowed', 'the order no longer exists');
  const { card, shop } = cardShop(deps, row);
  try {
    const payment = await card.provider.getPayment(shop, row.payment_ref);
    const settled = await settleFromProvider(deps, order, shop, payment);
    if (settled.detail === 'refund_in_flight') {
      return refused('action_in_progress', 'a refund of this payment is in flight; the order is not credited while it is');
    }
    if (settled.disposition !== 'handled' || (settled.detail !== 'credited' && settled.detail !== 'already_settled')) {
      return refused('action_not_allowed', `the payment was not credited (${settled.detail})`);
    }
    if (settled.detail === 'already_settled') {
      const current = await orderById(deps.db, order.id);
      if (current?.state !== 'paid' || current.provider_payment_id !== payment.id)
        return refused('action_not_allowed', `the order could not be credited (it is ${current?.state ?? 'gone'})`);
    }
    return { kind: 'done', result: { outcome: 'credited', detail: order.id } };
  } catch (err: unknown) {
    if (!(err instanceof ProviderError)) throw err;
    // The order is credited only after the provider's answer: without one nothing moved.
    return err.failure === 'unavailable'
      ? refused('action_failed', `the provider did not answer (${err.status ?? 'no answer'}); nothing was recorded, press again`)
      : refused('action_not_allowed', `the provider refused: ${err.detail.slice(0, 200)}`);
  }
}

function cardShop(deps: PaymentDeps, row: MismatchRow) {
  const card = deps.card;
  const shop = card ? shopOf(card, row.shop) : undefined;
  if (!card || !shop) throw actionError('action_not_allowed', 'the card shop of this payment is not configured');
  return { card, shop };
}
