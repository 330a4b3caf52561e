import type { Request, Response } from 'express';
import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { asOperator, failureOf, type ConsoleClient } from '../backend.js';
import { html } from '../../http/index.js';
import { page, send, sendError } from '../layout.js';

const PAGE_SIZE = 50;
const INT64_MAX = 9_223_372_036_854_775_807n;
const STATUSES = ['', 'pending', 'refunded', 'failed'] as const;

interface Row {
  id: bigint;
  createdAt: bigint;
  platformChargeId: string;
  orderId: string;
  amount: bigint;
  payerId: bigint;
  reason: string;
  status: string;
  attempts: number;
  error: string;
  refundedAt: bigint;
}

/** The page's rows from an UnmatchedList; its `charge_id` and `order_id` fields are read into the one names used here. */
function readList(body: Uint8Array) {
  return decodeTable(
    body,
    (bb) => fb.UnmatchedList.getRootAsUnmatchedList(bb),
    (t) => ({
      counts: { pending: t.pending(), refunded: t.refunded(), failed: t.failed() },
      rows: Array.from({ length: t.paymentsLength() }, (_, i): Row => {
        const p = t.payments(i);
        return {
          id: p?.id() ?? 0n,
          createdAt: p?.createdAtUnix() ?? 0n,
          platformChargeId: p?.chargeId() ?? '',
          orderId: p?.orderRef() ?? '',
          amount: p?.amount() ?? 0n,
          payerId: p?.payerId() ?? 0n,
          reason: p?.reason() ?? '',
          status: p?.refundStatus() ?? '',
          attempts: p?.refundAttempts() ?? 0,
          error: p?.refundError() ?? '',
          refundedAt: p?.refundedAtUnix() ?? 0n,
        };
      }),
    }),
  );
}

const utc = (unix: bigint) => (unix === 0n ? '' : `${new Date(Number(unix) * 1000).toISOString().slice(0, 19).replace('T', ' ')}`);

const STATUS_TEXT: Record<string, string> = { pending: 'refund pending', refunded: 'refunded', failed: 'refund failed' };

function rowHtml(r: Row) {
  return html`<tr data-charge="${r.platformChargeId}" data-status="${r.status}"><td>${utc(r.createdAt)}</td><td>${r.platformChargeId}</td><td>${r.orderId}</td><td class="num">${r.amount} XTR</td>
<td>${r.payerId}</td><td>${r.reason}</td><td class="status">${STATUS_TEXT[r.status] ?? r.status}</td><td class="num">${r.attempts}</td><td class="error">${r.error}</td><td>${utc(r.refundedAt)}</td></tr>`;
}

/**
 * GET /_gm/unmatched (viewer): stars payments that credited nothing (unknown order, order already
 * paid or failed, amount mismatch) and their automatic return to the payer: refund pending (with
 * the last unknown outcome), refunded, or refund failed with the platform's answer. Newest first,
 * filter by status, keyset pages (`before`).
 */
export function unmatchedPage(client: ConsoleClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const status = typeof req.query['status'] === 'string' ? req.query['status'] : '';
    const beforeRaw = typeof req.query['before'] === 'string' ? req.query['before'] : '';
    if (
      !(STATUSES as readonly string[]).includes(status) ||
      (beforeRaw !== '' && (!/^[1-9][0-9]{0,18}$/.test(beforeRaw) || BigInt(beforeRaw) > INT64_MAX))
    ) {
      sendError(res, 400, 'Unmatched stars payments', 'Unknown status or malformed page position.', operator);
      return;
    }
    const before = beforeRaw === '' ? 0n : BigInt(beforeRaw);
    let data;
    try {
      const body = encodeTable((b) => fb.UnmatchedQuery.createUnmatchedQuery(b, b.createString(status), before, PAGE_SIZE));
      data = readList((await client.listUnmatchedPayments({ body }, asOperator(operator.token))).body);
    } catch (err: unknown) {
      const failure = failureOf(err);
      if (failure.errorCode === 'internal' || failure.errorCode === 'unavailable') req.log.error({ err }, 'console unmatched query failed');
      sendError(res, failure.status, 'Unmatched stars payments', failure.message, operator);
      return;
    }
    const last = data.rows.at(-1);
    const next =
      data.rows.length === PAGE_SIZE && last ? `/_gm/unmatched?${new URLSearchParams({ status, before: String(last.id) }).toString()}` : '';
    const tab = (s: string, label: string) =>
      s === status
        ? html`<strong>${label}</strong>`
        : html`<a href="/_gm/unmatched?${new URLSearchParams({ status: s }).toString()}">${label}</a>`;
    send(
      res,
      200,
      page(
        'Unmatched stars payments',
        html`<p>Stars payments that credited nothing are returned to the payer automatically, retried until the platform confirms. All times UTC.</p>
<p id="counts" data-pending="${data.counts.pending}" data-refunded="${data.counts.refunded}" data-failed="${data.counts.failed}">
${tab('', 'All')} · ${tab('pending', `Refund pending (${data.counts.pending})`)} · ${tab('refunded', `Refunded (${data.counts.refunded})`)} · ${tab('failed', `Refund failed (${data.counts.failed})`)}</p>
<table id="unmatched"><tr><th>Time</th><th>Charge</th><th>Order named</th><th>Stars</th><th>Payer</th><th>Why unmatched</th><th>Refund</th><th>Attempts</th><th>Platform answer</th><th>Refunded at</th></tr>
${data.rows.map(rowHtml)}</table>
<p>${next ? html`<a id="next" href="${next}">Next page</a>` : ''}</p>`,
        operator,
      ),
    );
  };
}
