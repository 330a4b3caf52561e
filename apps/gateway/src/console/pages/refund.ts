import type { Request, Response } from 'express';
import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { asOperator, failureOf, type ConsoleClient } from '../backend.js';
import { html, type SafeHtml } from '../../http/index.js';
import { confirmationPage, confirmToken, confirmValid, confirmForm as form } from '../confirm.js';
import { page, send, sendError } from '../layout.js';
import { formatAmount } from '../money.js';
import type { ConsoleOperator } from '../session.js';
import { safeReturnPath } from '../return-path.js';

const ORDER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The order and return path of a refund request, or the reason it is refused. */
function readInput(source: Record<string, unknown>): { orderId: string; back: string } | { error: string } {
  const orderId = source['order'];
  if (typeof orderId !== 'string' || !ORDER_ID.test(orderId)) return { error: 'The order id is malformed.' };
  const back = safeReturnPath(source['return']);
  if (back === null) return { error: 'The return destination was refused: only console paths are allowed.' };
  return { orderId, back };
}

/** An order as a refund of it would act on it, read from the backend (GetRefundOrder). */
interface OrderFacts {
  orderId: string;
  state: string;
  rail: string;
  provider: string;
  amount: bigint;
  currency: string;
  accountId: bigint;
  /** Stars: the platform user the stars go back to; 0 when not known (and on the card rail). */
  payer: bigint;
  chips: bigint;
  /** The recorded refund's id; empty while none is recorded. */
  refundId: string;
  /** A refund of the order may exist at the provider or platform and is not final yet. */
  refundInFlight: boolean;
}

async function fetchFacts(client: ConsoleClient, operator: ConsoleOperator, orderId: string): Promise<OrderFacts> {
  const answer = await client.getRefundOrder(
    { body: encodeTable((b) => fb.RefundOrderLookup.createRefundOrderLookup(b, b.createString(orderId))) },
    asOperator(operator.token),
  );
  return decodeTable(
    answer.body,
    (bb) => fb.RefundOrderFacts.getRootAsRefundOrderFacts(bb),
    (t) => ({
      orderId: t.orderId() ?? '',
      state: t.state() ?? '',
      rail: t.rail() ?? '',
      provider: t.provider() ?? '',
      amount: t.amount(),
      currency: t.currency() ?? '',
      accountId: t.accountId(),
      payer: t.payerUserId(),
      chips: t.chips(),
      refundId: t.refundId() ?? '',
      refundInFlight: t.refundInFlight(),
    }),
  );
}

/**
 * What the confirmation page shows and its token binds: the order, what would go back and to
 * whom, and the order's state and chips. Change any (the order credited or failed meanwhile, another
 * payer) and the page's form no longer acts. A refund recorded or in flight meanwhile is not bound:
 * pressing again then answers that refund and never pays twice.
 */
function shownOf(f: OrderFacts): string[] {
  return [
    'ledger-refund',
    f.orderId,
    `${f.amount} ${f.currency}`,
    f.rail,
    f.provider,
    String(f.accountId),
    String(f.payer),
    f.state,
    String(f.chips),
  ];
}

/** The confirming form's fields for `facts`: the order, the way back and the confirmation token of what the page showed. */
function confirmFields(operator: ConsoleOperator, facts: OrderFacts, back: string): Record<string, string> {
  return { order: facts.orderId, return: back, confirm: confirmToken(operator.token, shownOf(facts)) };
}

/** The "press again" forms of an outcome page: the confirmation page's form, confirmed again by the same token. */
function confirmForm(operator: ConsoleOperator, facts: OrderFacts, back: string, label: string) {
  return form(operator, '/_gm/ledger/refund', confirmFields(operator, facts, back), label, 'refund-form');
}

/** Answers a failed facts read: the backend's reason (unknown order 404, a missing role 403), logged when unexpected. */
function factsFailed(req: Request, res: Response, err: unknown, operator: ConsoleOperator): void {
  const f = failureOf(err);
  if (f.errorCode === 'internal' || f.errorCode === 'unavailable') req.log.error({ err }, 'console refund: order facts failed');
  sendError(res, f.status, 'Refund', `${f.message}.`, operator);
}

/**
 * Answers the confirmation page of a refund of `f` (amount, currency, rail, player, order), or, when
 * there is nothing to refund (a refund is recorded already, the order is not paid), a page that says
 * so and offers nothing (409).
 */
function sendConfirmation(res: Response, operator: ConsoleOperator, f: OrderFacts, back: string, notice?: SafeHtml): void {
  const backLink = html`<p><a id="back" href="${back}">Return to the ledger</a></p>`;
  const refusal =
    f.refundId !== ''
      ? { code: 'already_refunded', text: html`it is refunded already (refund <code>${f.refundId}</code>)` }
      : f.state !== 'paid'
        ? { code: 'order_not_paid', text: html`it is ${f.state}, and only a paid order can be refunded` }
        : null;
  if (refusal !== null) {
    send(
      res,
      409,
      page(
        'Nothing to confirm',
        html`<p class="error" id="outcome" data-outcome="failed" data-code="${refusal.code}">Order <code id="order">${f.orderId}</code>: ${refusal.text}.</p>${backLink}`,
        operator,
      ),
    );
    return;
  }
  const amount = formatAmount(f.amount, f.currency);
  const stars = f.rail === 'stars';
  const player = html`account <span id="account">${f.accountId}</span>${stars ? (f.payer === 0n ? ' (payer not known: the platform refund is refused)' : html` (platform user <span id="payer">${f.payer}</span>)`) : ''}`;
  const order = html`<code id="order">${f.orderId}</code> (now ${f.state}, ${f.chips} chips)${f.refundInFlight ? html` <strong id="in-flight">a refund of it is in flight, not final yet</strong>` : ''}`;
  const question = stars
    ? html`Return <strong>${amount}</strong> to the payer through the platform (<code>refund_star_payment</code>)? The ledger records the refund, and takes back what the order funded, only once the platform confirms it.`
    : html`Return <strong>${amount}</strong> to the payer through the provider? The provider is asked first; the ledger records the refund, and takes back what the order funded, only once the provider reports it succeeded.`;
  send(
    res,
    200,
    confirmationPage(operator, {
      title: 'Confirm refund',
      question,
      notice,
      facts: [
        { name: 'action', label: 'Action', value: 'Refund in full' },
        { name: 'amount', label: 'Amount', value: html`<span data-minor="${f.amount}">${amount}</span>` },
        { name: 'currency', label: 'Currency', value: f.currency },
        { name: 'rail', label: 'Rail', value: `${f.rail} (${f.provider})` },
        { name: 'player', label: 'Player', value: player },
        { name: 'order', label: 'Order', value: order },
      ],
      action: '/_gm/ledger/refund',
      fields: confirmFields(operator, f, back),
      button: `Refund ${amount}`,
      back: { href: back, label: 'Cancel and return to the ledger' },
      formId: 'refund-form',
    }),
  );
}

/** GET /_gm/ledger/refund?order=&return= (refunder): the confirmation page, read from the backend; nothing moves. */
export function refundConfirm(client: ConsoleClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const input = readInput(req.query);
    if ('error' in input) {
      sendError(res, 400, 'Refund', input.error, operator);
      return;
    }
    let facts;
    try {
      facts = await fetchFacts(client, operator, input.orderId);
    } catch (err: unknown) {
      factsFailed(req, res, err, operator);
      return;
    }
    sendConfirmation(res, operator, facts, input.back);
  };
}

/**
 * POST /_gm/ledger/refund (refunder, CSRF): acts only with the `confirm` token of the confirmation
 * page for the order as it is now (shownOf); without it (a plain POST, a script, another session's
 * page, an order changed since) the confirmation page is shown again and nothing moves. Then runs
 * the backend refund and shows its outcome — succeeded (recorded), pending (nothing recorded; press
 * again, same idempotence key), canceled (nothing recorded; pressing again starts a new refund under
 * a new key), in progress (another press's refund call is under way, this press made none; press
 * again for its outcome) or failed — with a link back to the same filtered ledger view.
 */
export function refundAction(client: ConsoleClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const input = readInput(body);
    if ('error' in input) {
      sendError(res, 400, 'Refund', input.error, operator);
      return;
    }
    let facts;
    try {
      facts = await fetchFacts(client, operator, input.orderId);
    } catch (err: unknown) {
      factsFailed(req, res, err, operator);
      return;
    }
    if (!confirmValid(operator.token, shownOf(facts), body['confirm'])) {
      const notice =
        body['confirm'] === undefined
          ? html`<p class="notice" id="unconfirmed">Nothing was done: confirm the refund below.</p>`
          : html`<p class="error" id="unconfirmed">Nothing was done: the confirmation does not match this order as it is now; check it below and confirm again.</p>`;
      sendConfirmation(res, operator, facts, input.back, notice);
      return;
    }
    const back = html`<p><a id="back" href="${input.back}">Return to the ledger</a></p>`;
    try {
      const res2 = await client.consoleRefund(
        { body: encodeTable((b) => fb.ConsoleRefund.createConsoleRefund(b, b.createString(input.orderId))) },
        asOperator(operator.token),
      );
      const r = decodeTable(
        res2.body,
        (bb) => fb.ConsoleRefundResult.getRootAsConsoleRefundResult(bb),
        (t) => ({
          status: t.status() ?? '',
          refundId: t.refundId() ?? '',
          amount: t.amount(),
          currency: t.currency() ?? '',
        }),
      );
      if (r.status === 'succeeded') {
        send(
          res,
          200,
          page(
            'Refund succeeded',
            html`<p class="notice" id="outcome" data-outcome="succeeded">Refunded ${formatAmount(r.amount, r.currency)} (provider refund <code>${r.refundId}</code>). The ledger records it once.</p>${back}`,
            operator,
          ),
        );
      } else if (r.status === 'pending') {
        send(
          res,
          202,
          page(
            'Refund pending',
            html`<p id="outcome" data-outcome="pending">The provider has not finished refund <code>${r.refundId}</code> yet. Nothing is recorded; press again to check (it will not pay twice).</p>
${confirmForm(operator, facts, input.back, 'Press again')}${back}`,
            operator,
          ),
        );
      } else {
        send(
          res,
          409,
          page(
            'Refund canceled',
            html`<p class="error" id="outcome" data-outcome="canceled">The provider canceled refund <code>${r.refundId}</code>. Nothing was recorded; pressing again starts a new refund.</p>
${confirmForm(operator, facts, input.back, 'Start a new refund')}${back}`,
            operator,
          ),
        );
      }
    } catch (err: unknown) {
      const f = failureOf(err);
      if (f.errorCode === 'internal' || f.errorCode === 'unavailable') req.log.error({ err }, 'console refund failed');
      if (f.errorCode === 'refund_in_progress') {
        send(
          res,
          f.status,
          page(
            'Refund in progress',
            html`<p id="outcome" data-outcome="in_progress" data-code="${f.errorCode}">${f.message}.</p>
${confirmForm(operator, facts, input.back, 'Press again')}${back}`,
            operator,
          ),
        );
        return;
      }
      send(
        res,
        f.status,
        page(
          'Refund failed',
          html`<p class="error" id="outcome" data-outcome="failed" data-code="${f.errorCode}">${f.message}. Nothing was recorded.</p>${back}`,
          operator,
        ),
      );
    }
  };
}
