import type { Request, Response } from 'express';
import { createClient, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { asOperator, consoleTransport, failureOf } from '../backend.js';
import { html, type SafeHtml } from '../../http/index.js';
import { csrfField, page, send, sendError } from '../layout.js';
import { formatAmount } from '../money.js';
import type { ConsoleOperator } from '../session.js';

/** The backend's ReconciliationService. */
export type ReconciliationClient = Client<typeof backendApi.ReconciliationService>;

/** A ReconciliationService client on its own connection; every call presents the service `token`. */
export function createReconciliationClient(urls: string | readonly string[], token: string): ReconciliationClient {
  return createClient(backendApi.ReconciliationService, consoleTransport(urls, token, 30_000));
}

interface Row {
  id: bigint;
  kind: string;
  rail: string;
  provider: string;
  orderId: string;
  paymentRef: string;
  refundRef: string;
  payerRef: string;
  ledger: string;
  provided: string;
  at: bigint;
  resolution: string;
}

function readReport(body: Uint8Array) {
  return decodeTable(
    body,
    (bb) => fb.ReconciliationReport.getRootAsReconciliationReport(bb),
    (t) => ({
      hasRun: t.hasRun(),
      runId: t.runId(),
      trigger: t.trigger() ?? '',
      from: t.windowFromUnix(),
      to: t.windowToUnix(),
      finishedAt: t.finishedAtUnix(),
      outcome: t.outcome() ?? '',
      error: t.error() ?? '',
      rails: t.rails() ?? '',
      rows: Array.from({ length: t.mismatchesLength() }, (_, i): Row => {
        const m = t.mismatches(i);
        return {
          id: m?.id() ?? 0n,
          kind: m?.kind() ?? '',
          rail: m?.rail() ?? '',
          provider: m?.provider() ?? '',
          orderId: m?.orderId() ?? '',
          paymentRef: m?.paymentRef() ?? '',
          refundRef: m?.refundRef() ?? '',
          payerRef: m?.payerRef() ?? '',
          ledger: m?.hasLedger() ? formatAmount(m.ledgerAmount(), m.ledgerCurrency() ?? '') : '—',
          provided: m?.hasProvider() ? formatAmount(m.providerAmount(), m.providerCurrency() ?? '') : '—',
          at: m?.occurredAtUnix() ?? 0n,
          resolution: m?.resolution() ?? '',
        };
      }),
    }),
  );
}

const utc = (unix: bigint) => (unix === 0n ? '' : new Date(Number(unix) * 1000).toISOString().slice(0, 19).replace('T', ' '));

/** What each kind means to an operator. */
const KIND_TEXT: Record<string, string> = {
  taken_not_credited: 'Money taken, not credited',
  credited_not_taken: 'Credited, money not taken',
  refund_provider_only: 'Refund at the provider only',
  refund_ledger_only: 'Refund in our ledger only',
  amount_mismatch: 'Amount or currency differs',
};

function actionForm(operator: ConsoleOperator, r: Row, action: 'refund' | 'credit' | 'resolve', label: string): SafeHtml {
  return html`<form method="post" action="/_gm/reconciliation/act" class="act">${csrfField(operator)}<input type="hidden" name="mismatch" value="${r.id}"><input type="hidden" name="action" value="${action}"><button type="submit" name="do" value="${action}">${label}</button></form>`;
}

function actions(operator: ConsoleOperator, r: Row): SafeHtml | string {
  if (r.resolution !== '') return html`<span class="resolution">${r.resolution}</span>`;
  if (!operator.roles.includes('refunder')) return 'open';
  const taken = r.kind === 'taken_not_credited';
  return html`${taken ? actionForm(operator, r, 'refund', 'Refund') : ''}${taken && r.orderId !== '' ? actionForm(operator, r, 'credit', 'Credit the order') : ''}${actionForm(operator, r, 'resolve', 'Mark resolved')}`;
}

function rowHtml(operator: ConsoleOperator, r: Row): SafeHtml {
  return html`<tr data-id="${r.id}" data-kind="${r.kind}" data-order="${r.orderId}" data-payment="${r.paymentRef}"><td>${KIND_TEXT[r.kind] ?? r.kind}</td><td>${r.rail} (${r.provider})</td>
<td>${r.orderId}</td><td>${r.paymentRef}</td><td>${r.refundRef}</td><td>${r.payerRef}</td><td class="num">${r.ledger}</td><td class="num">${r.provided}</td><td>${utc(r.at)}</td><td>${actions(operator, r)}</td></tr>`;
}

/**
 * GET /_gm/reconciliation (viewer): the last provider reconciliation — its window, outcome and
 * every mismatch with the order, payment/charge and refund ids and both sides' amounts. A
 * refunder gets the actions (refund or credit money taken but not credited; mark any row
 * resolved); every other operator sees the report read-only.
 */
export function reconciliationPage(client: ReconciliationClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    let report;
    try {
      report = readReport(
        (
          await client.getReconciliationReport(
            { body: encodeTable((b) => fb.ReconciliationQuery.createReconciliationQuery(b)) },
            asOperator(operator.token),
          )
        ).body,
      );
    } catch (err: unknown) {
      const failure = failureOf(err);
      if (failure.errorCode === 'internal' || failure.errorCode === 'unavailable')
        req.log.error({ err }, 'console reconciliation query failed');
      sendError(res, failure.errorCode === 'operator_forbidden' ? 403 : 502, 'Provider reconciliation', failure.message, operator);
      return;
    }
    if (!report.hasRun) {
      send(
        res,
        200,
        page(
          'Provider reconciliation',
          html`<p id="summary" data-outcome="none">No reconciliation has run yet. The backend runs it on its schedule; <code>reconcile --hours 24</code> runs it now.</p>`,
          operator,
        ),
      );
      return;
    }
    const open = report.rows.filter((r) => r.resolution === '').length;
    const summary = html`<p id="summary" data-outcome="${report.outcome}" data-open="${open}">Run ${report.runId} (${report.trigger}, rails ${report.rails}) compared ${utc(report.from)} to ${utc(report.to)} UTC, finished ${utc(report.finishedAt)}:
${report.outcome === 'failed' ? html`<strong class="error">failed</strong> — ${report.error}` : report.outcome === 'incomplete' ? html`<strong class="error">incomplete</strong>, nothing reported for this run (neither mismatches nor all clear) — ${report.error}` : report.outcome === 'clean' ? html`<strong>clean</strong>, the providers agree with the ledger.` : html`<strong>${report.rows.length} mismatches</strong>, ${open} open.`}</p>`;
    send(
      res,
      200,
      page(
        'Provider reconciliation',
        html`${summary}
<table id="mismatches" class="fit"><tr><th>What</th><th>Rail</th><th>Order</th><th>Payment / charge</th><th>Refund</th><th>Payer</th><th>Ledger</th><th>Provider</th><th>When (UTC)</th><th>${operator.roles.includes('refunder') ? 'Action' : 'State'}</th></tr>
${report.rows.map((r) => rowHtml(operator, r))}</table>`,
        operator,
      ),
    );
  };
}

/**
 * POST /_gm/reconciliation/act (refunder, CSRF): `mismatch` and `action` (refund, credit,
 * resolve); the backend carries it out through the refund and credit paths, records the
 * resolution and audits it. Shows the outcome with a link back; when another action owns the row
 * (one action per row), what that action did or is doing, by whom and since when.
 */
export function reconciliationAct(client: ReconciliationClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const id = body['mismatch'];
    const action = body['action'];
    if (typeof id !== 'string' || !/^[1-9][0-9]{0,17}$/.test(id) || (action !== 'refund' && action !== 'credit' && action !== 'resolve')) {
      sendError(res, 400, 'Reconciliation', 'Unknown mismatch or action.', operator);
      return;
    }
    const back = html`<p><a id="back" href="/_gm/reconciliation">Return to the reconciliation report</a></p>`;
    try {
      const answer = await client.actOnMismatch(
        { body: encodeTable((b) => fb.ReconciliationAction.createReconciliationAction(b, BigInt(id), b.createString(action))) },
        asOperator(operator.token),
      );
      const r = decodeTable(
        answer.body,
        (bb) => fb.ReconciliationActionResult.getRootAsReconciliationActionResult(bb),
        (t) => ({ outcome: t.outcome() ?? '', detail: t.detail() ?? '' }),
      );
      send(
        res,
        200,
        page(
          'Reconciliation',
          html`<p class="notice" id="outcome" data-outcome="${r.outcome}">Mismatch ${id}: ${r.outcome}${r.detail ? html` (<code>${r.detail}</code>)` : ''}.</p>${back}`,
          operator,
        ),
      );
    } catch (err: unknown) {
      const f = failureOf(err);
      if (f.errorCode === 'internal' || f.errorCode === 'unavailable') req.log.error({ err }, 'console reconciliation action failed');
      const status =
        f.errorCode === 'operator_forbidden' ? 403 : f.errorCode === 'unknown_mismatch' ? 404 : f.errorCode === 'action_failed' ? 502 : 409;
      // Another action owns the row: the message says which, by whom and when; this press did nothing.
      const taken = f.errorCode === 'already_resolved' || f.errorCode === 'action_in_progress';
      send(
        res,
        status,
        page(
          taken ? 'Another action came first' : 'Reconciliation action failed',
          html`<p class="error" id="outcome" data-outcome="failed" data-code="${f.errorCode}">${f.message}.</p>${back}`,
          operator,
        ),
      );
    }
  };
}
