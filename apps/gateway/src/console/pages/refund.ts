import type { Request, Response } from 'express';
import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { asOperator, failureOf, type ConsoleClient } from '../backend.js';
import { html } from '../../http/index.js';
import { confirmationPage, confirmForm as form } from '../confirm.js';
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

function confirmForm(operator: ConsoleOperator, orderId: string, back: string, label: string) {
  return form(operator, '/_gm/ledger/refund', { order: orderId, return: back }, label, 'refund-form');
}

/** GET /_gm/ledger/refund?order=&return= (refunder): the confirmation page. */
export function refundConfirm() {
  return (req: Request, res: Response): void => {
    const operator = req.operator;
    if (!operator) return;
    const input = readInput(req.query);
    if ('error' in input) {
      sendError(res, 400, 'Refund', input.error, operator);
      return;
    }
    send(
      res,
      200,
      confirmationPage(operator, {
        title: 'Confirm refund',
        question: html`Refund order <code id="order">${input.orderId}</code> in full? The provider is asked first; the ledger records the refund only once the provider reports it succeeded.`,
        facts: [],
        action: '/_gm/ledger/refund',
        fields: { order: input.orderId, return: input.back },
        button: 'Refund in full',
        back: { href: input.back, label: 'Cancel and return to the ledger' },
        formId: 'refund-form',
      }),
    );
  };
}

/**
 * POST /_gm/ledger/refund (refunder, CSRF): runs the backend refund and shows its outcome —
 * succeeded (recorded), pending (nothing recorded; press again, same idempotence key), canceled
 * (nothing recorded; pressing again starts a new refund under a new key), in progress (another
 * press's refund call is under way, this press made none; press again for its outcome) or failed —
 * with a link back to the same filtered ledger view.
 */
export function refundAction(client: ConsoleClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const input = readInput((req.body ?? {}) as Record<string, unknown>);
    if ('error' in input) {
      sendError(res, 400, 'Refund', input.error, operator);
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
${confirmForm(operator, input.orderId, input.back, 'Press again')}${back}`,
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
${confirmForm(operator, input.orderId, input.back, 'Start a new refund')}${back}`,
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
${confirmForm(operator, input.orderId, input.back, 'Press again')}${back}`,
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
