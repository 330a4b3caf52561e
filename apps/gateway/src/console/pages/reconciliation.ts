import type { Request, Response } from 'express';
import { createClient, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { asOperator, consoleTransport, failureOf } from '../backend.js';
import { html, type SafeHtml } from '../../http/index.js';
import { confirmationPage, confirmToken, confirmValid } from '../confirm.js';
import { parseCursor } from '../filter.js';
import { csrfField, page, send, sendError } from '../layout.js';
import { formatAmount } from '../money.js';
import type { ConsoleOperator } from '../session.js';

/** The backend's ReconciliationService. */
export type ReconciliationClient = Client<typeof backendApi.ReconciliationService>;

/** A ReconciliationService client on its own connection; every call presents the service `token`. */
export function createReconciliationClient(urls: string | readonly string[], token: string): ReconciliationClient {
  return createClient(backendApi.ReconciliationService, consoleTransport(urls, token, 30_000));
}

/** A mismatch as the pages show it. */
interface Row {
  id: bigint;
  runId: bigint;
  kind: string;
  rail: string;
  provider: string;
  orderId: string;
  orderState: string;
  orderChips: bigint;
  paymentRef: string;
  refundRef: string;
  payerRef: string;
  accountId: bigint;
  ledger: string;
  provided: string;
  /** The amount the provider took, in minor units, and its currency; null when not known. */
  taken: { amount: bigint; currency: string } | null;
  at: bigint;
  resolution: string;
  resolvedAt: bigint;
  resolvedBy: string;
}

function readRow(m: fb.ReconciliationMismatch | null): Row {
  return {
    id: m?.id() ?? 0n,
    runId: m?.runId() ?? 0n,
    kind: m?.kind() ?? '',
    rail: m?.rail() ?? '',
    provider: m?.provider() ?? '',
    orderId: m?.orderId() ?? '',
    orderState: m?.orderState() ?? '',
    orderChips: m?.orderChips() ?? 0n,
    paymentRef: m?.paymentRef() ?? '',
    refundRef: m?.refundRef() ?? '',
    payerRef: m?.payerRef() ?? '',
    accountId: m?.accountId() ?? 0n,
    ledger: m?.hasLedger() ? formatAmount(m.ledgerAmount(), m.ledgerCurrency() ?? '') : '—',
    provided: m?.hasProvider() ? formatAmount(m.providerAmount(), m.providerCurrency() ?? '') : '—',
    taken: m?.hasProvider() ? { amount: m.providerAmount(), currency: m.providerCurrency() ?? '' } : null,
    at: m?.occurredAtUnix() ?? 0n,
    resolution: m?.resolution() ?? '',
    resolvedAt: m?.resolvedAtUnix() ?? 0n,
    resolvedBy: m?.resolvedBy() ?? '',
  };
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
      rows: Array.from({ length: t.mismatchesLength() }, (_, i) => readRow(t.mismatches(i))),
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

/** A recorded resolution (`refunded:<id>`, `refund_pending:<id>`, `refund_queued:<charge id>`, `credited:<order id>`, `resolved`) in words. */
export function resolutionText(resolution: string): string {
  const cut = resolution.indexOf(':');
  const outcome = cut < 0 ? resolution : resolution.slice(0, cut);
  const detail = cut < 0 ? '' : resolution.slice(cut + 1);
  switch (outcome) {
    case 'refunded':
      return `refunded ${detail}`;
    case 'refund_pending':
      return `refund pending ${detail} (not final at the provider)`;
    case 'refund_queued':
      return `being returned to the payer ${detail} (automatic stars refund, see Unmatched payments)`;
    case 'credited':
      return `credited ${detail}`;
    case 'resolved':
      return 'marked resolved';
    default:
      return resolution;
  }
}

/** The two actions that move money: each is confirmed on its own page first. */
type MoneyAction = 'refund' | 'credit';
const BUTTON: Record<MoneyAction, string> = { refund: 'Refund', credit: 'Credit the order' };

function actionLink(r: Row, action: MoneyAction): SafeHtml {
  return html`<a class="act" data-action="${action}" href="/_gm/reconciliation/act?${new URLSearchParams({ mismatch: String(r.id), action }).toString()}">${BUTTON[action]}</a>`;
}

function resolveForm(operator: ConsoleOperator, r: Row): SafeHtml {
  return html`<form method="post" action="/_gm/reconciliation/act" class="act">${csrfField(operator)}<input type="hidden" name="mismatch" value="${r.id}"><input type="hidden" name="action" value="resolve"><button type="submit" name="do" value="resolve">Mark resolved</button></form>`;
}

function resolvedText(r: Row): SafeHtml {
  return html`<span class="resolution">${resolutionText(r.resolution)}</span>${r.resolvedBy ? html` by <span class="by">${r.resolvedBy}</span>` : ''}${r.resolvedAt !== 0n ? html` at ${utc(r.resolvedAt)}` : ''}`;
}

function actions(operator: ConsoleOperator, r: Row): SafeHtml | string {
  if (r.resolution !== '') return resolvedText(r);
  if (!operator.roles.includes('refunder')) return 'open';
  const taken = r.kind === 'taken_not_credited';
  return html`${taken ? actionLink(r, 'refund') : ''} ${taken && r.orderId !== '' ? actionLink(r, 'credit') : ''} ${resolveForm(operator, r)}`;
}

function rowHtml(operator: ConsoleOperator, r: Row): SafeHtml {
  return html`<tr data-id="${r.id}" data-kind="${r.kind}" data-order="${r.orderId}" data-payment="${r.paymentRef}"><td>${KIND_TEXT[r.kind] ?? r.kind}</td><td>${r.rail} (${r.provider})</td>
<td>${r.orderId}</td><td>${r.paymentRef}</td><td>${r.refundRef}</td><td>${r.payerRef}</td><td class="num">${r.ledger}</td><td class="num">${r.provided}</td><td>${utc(r.at)}</td><td>${actions(operator, r)}</td></tr>`;
}

/** The two views of the page, as tabs: the last run's report and the resolved rows of every run. */
function tabs(current: 'report' | 'history'): SafeHtml {
  const tab = (view: 'report' | 'history', href: string, label: string) =>
    view === current ? html`<strong id="tab-${view}">${label}</strong>` : html`<a id="tab-${view}" href="${href}">${label}</a>`;
  return html`<p class="tabs">${tab('report', '/_gm/reconciliation', 'Last run')} | ${tab('history', '/_gm/reconciliation?view=history', 'History of resolved rows')}</p>`;
}

/** Resolved rows per history page. */
export const HISTORY_PAGE_SIZE = 50;

/** Logs an unexpected backend failure and answers the page's error. */
function backendFailed(req: Request, res: Response, err: unknown, title: string, operator: ConsoleOperator): void {
  const failure = failureOf(err);
  if (failure.errorCode === 'internal' || failure.errorCode === 'unavailable')
    req.log.error({ err }, 'console reconciliation query failed');
  const status = failure.errorCode === 'operator_forbidden' ? 403 : failure.errorCode === 'unknown_mismatch' ? 404 : 502;
  sendError(res, status, title, failure.message, operator);
}

/**
 * GET /_gm/reconciliation (viewer): the last provider reconciliation — its window, outcome and
 * every mismatch with the order, payment/charge and refund ids and both sides' amounts. A
 * refunder gets the actions (refund or credit money taken but not credited, each through its
 * confirmation page; mark any row resolved); every other operator sees the report read-only.
 * `?view=history` is the resolved rows of every run instead (historyPage).
 */
export function reconciliationPage(client: ReconciliationClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const view = req.query['view'];
    if (view === 'history') return historyPage(client, req, res, operator);
    if (view !== undefined) {
      sendError(res, 400, 'Provider reconciliation', 'Unknown view.', operator);
      return;
    }
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
      backendFailed(req, res, err, 'Provider reconciliation', operator);
      return;
    }
    if (!report.hasRun) {
      send(
        res,
        200,
        page(
          'Provider reconciliation',
          html`${tabs('report')}<p id="summary" data-outcome="none">No reconciliation has run yet. The backend runs it on its schedule; <code>reconcile --hours 24</code> runs it now.</p>`,
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
        html`${tabs('report')}${summary}
<table id="mismatches" class="fit"><tr><th>What</th><th>Rail</th><th>Order</th><th>Payment / charge</th><th>Refund</th><th>Payer</th><th>Ledger</th><th>Provider</th><th>When (UTC)</th><th>${operator.roles.includes('refunder') ? 'Action' : 'State'}</th></tr>
${report.rows.map((r) => rowHtml(operator, r))}</table>`,
        operator,
      ),
    );
  };
}

/**
 * GET /_gm/reconciliation?view=history[&before=<resolved_us>.<id>] (viewer): every resolved
 * mismatch of every run, newest resolution first, HISTORY_PAGE_SIZE a page — when, by whom, what
 * was done, and the row as it was reported. A row stays here after later runs replace the report.
 */
async function historyPage(client: ReconciliationClient, req: Request, res: Response, operator: ConsoleOperator): Promise<void> {
  const cursor = parseCursor(req.query['before']);
  if (cursor === undefined) {
    sendError(res, 400, 'Reconciliation history', 'Malformed page cursor.', operator);
    return;
  }
  let data;
  try {
    const answer = await client.listResolvedMismatches(
      {
        body: encodeTable((b) =>
          fb.ResolvedMismatchQuery.createResolvedMismatchQuery(b, cursor?.createdUs ?? 0n, cursor?.id ?? 0n, HISTORY_PAGE_SIZE),
        ),
      },
      asOperator(operator.token),
    );
    data = decodeTable(
      answer.body,
      (bb) => fb.ResolvedMismatches.getRootAsResolvedMismatches(bb),
      (t) => ({
        rows: Array.from({ length: t.mismatchesLength() }, (_, i) => readRow(t.mismatches(i))),
        next: t.hasNext() ? `${t.nextResolvedUs()}.${t.nextId()}` : null,
      }),
    );
  } catch (err: unknown) {
    backendFailed(req, res, err, 'Reconciliation history', operator);
    return;
  }
  const rows = data.rows.map(
    (r) =>
      html`<tr data-id="${r.id}" data-resolution="${r.resolution}"><td>${utc(r.resolvedAt)}</td><td class="by">${r.resolvedBy}</td><td class="resolution">${resolutionText(r.resolution)}</td>
<td>${KIND_TEXT[r.kind] ?? r.kind}</td><td>${r.rail} (${r.provider})</td><td>${r.orderId}</td><td>${r.paymentRef}</td><td>${r.accountId === 0n ? r.payerRef : html`account ${r.accountId}`}</td><td class="num">${r.provided}</td><td>${r.runId}</td></tr>`,
  );
  send(
    res,
    200,
    page(
      'Provider reconciliation',
      html`${tabs('history')}<p id="history-summary" data-rows="${data.rows.length}">Resolved mismatches of every run, newest resolution first${cursor ? ' (continued)' : ''}. Times are UTC.</p>
<table id="history" class="fit"><tr><th>Resolved (UTC)</th><th>By</th><th>What was done</th><th>What</th><th>Rail</th><th>Order</th><th>Payment / charge</th><th>Player</th><th>Provider amount</th><th>Run</th></tr>
${rows}</table>
<p>${cursor ? html`<a id="first" href="/_gm/reconciliation?view=history">Newest</a> ` : ''}${data.next ? html`<a id="next" href="/_gm/reconciliation?view=history&amp;before=${data.next}">Older</a>` : ''}</p>`,
      operator,
    ),
  );
}

/** The mismatch and money action a confirmation or action names, or why it is refused. */
function readTarget(source: Record<string, unknown>): { id: string; action: MoneyAction | 'resolve' } | null {
  const id = source['mismatch'];
  const action = source['action'];
  if (typeof id !== 'string' || !/^[1-9][0-9]{0,17}$/.test(id) || (action !== 'refund' && action !== 'credit' && action !== 'resolve'))
    return null;
  return { id, action };
}

/** What a confirmation page shows and its token binds: change any and the page's form no longer acts. */
function shownOf(r: Row, action: MoneyAction): string[] {
  return [
    String(r.id),
    action,
    r.taken ? `${r.taken.amount} ${r.taken.currency}` : '',
    r.rail,
    r.provider,
    r.orderId,
    String(r.accountId),
    r.payerRef,
    r.paymentRef,
  ];
}

async function fetchRow(client: ReconciliationClient, operator: ConsoleOperator, id: string): Promise<Row> {
  const answer = await client.getMismatch(
    { body: encodeTable((b) => fb.MismatchLookup.createMismatchLookup(b, BigInt(id))) },
    asOperator(operator.token),
  );
  return decodeTable(
    answer.body,
    (bb) => fb.ReconciliationMismatch.getRootAsReconciliationMismatch(bb),
    (t) => readRow(t),
  );
}

const BACK = { href: '/_gm/reconciliation', label: 'Cancel and return to the reconciliation report' };

/**
 * Answers the confirmation page of `action` on `r`, or, when the row can no longer take it
 * (resolved, another kind, no order to credit), a page that says so and offers nothing (409).
 */
function sendConfirmation(res: Response, operator: ConsoleOperator, r: Row, action: MoneyAction, notice?: SafeHtml): void {
  const back = html`<p><a id="back" href="/_gm/reconciliation">Return to the reconciliation report</a></p>`;
  if (r.resolution !== '') {
    send(
      res,
      409,
      page(
        'Nothing to confirm',
        html`<p class="error" id="outcome" data-outcome="failed" data-code="already_resolved">Mismatch ${r.id} is already resolved: ${resolvedText(r)}.</p>${back}`,
        operator,
      ),
    );
    return;
  }
  const refusal =
    r.kind !== 'taken_not_credited'
      ? 'only money taken but not credited can be refunded or credited; mark this row resolved once it is dealt with'
      : action === 'credit' && r.orderId === ''
        ? 'no order is known for this payment: refund it instead'
        : action === 'refund' && r.taken === null
          ? 'the amount taken is not known'
          : null;
  if (refusal !== null) {
    send(
      res,
      409,
      page(
        'Nothing to confirm',
        html`<p class="error" id="outcome" data-outcome="failed" data-code="action_not_allowed">Mismatch ${r.id}: ${refusal}.</p>${back}`,
        operator,
      ),
    );
    return;
  }
  const amount = r.taken ? formatAmount(r.taken.amount, r.taken.currency) : '—';
  const player = html`${r.accountId === 0n ? 'account not known' : html`account <span id="account">${r.accountId}</span>`}${r.rail === 'stars' && r.payerRef !== '' ? html` (platform user ${r.payerRef})` : ''}`;
  const order =
    r.orderId === ''
      ? 'none known'
      : html`<code>${r.orderId}</code>${r.orderState ? html` (now ${r.orderState}${r.orderChips > 0n ? html`, ${r.orderChips} chips` : ''})` : ''}`;
  const question =
    action === 'refund'
      ? r.rail === 'stars'
        ? html`Return <strong>${amount}</strong> to the payer through the platform (<code>refund_star_payment</code>)? The order is not credited.`
        : html`Return <strong>${amount}</strong> to the payer through the provider (a refund keyed <code>reconcile-${r.paymentRef}</code>, so pressing again cannot pay twice)? The order is not credited.`
      : html`Credit the order with the <strong>${amount}</strong> taken? The player gets the order's chips and the money stays taken.`;
  send(
    res,
    200,
    confirmationPage(operator, {
      title: action === 'refund' ? 'Confirm refund' : 'Confirm credit',
      question,
      notice,
      facts: [
        { name: 'action', label: 'Action', value: BUTTON[action] },
        { name: 'amount', label: 'Amount', value: html`<span data-minor="${r.taken?.amount ?? ''}">${amount}</span>` },
        { name: 'currency', label: 'Currency', value: r.taken?.currency ?? '—' },
        { name: 'rail', label: 'Rail', value: `${r.rail} (${r.provider})` },
        { name: 'player', label: 'Player', value: player },
        { name: 'order', label: 'Order', value: order },
        { name: 'payment', label: 'Payment / charge', value: html`<code>${r.paymentRef}</code>` },
        { name: 'mismatch', label: 'Mismatch', value: `${r.id} (${KIND_TEXT[r.kind] ?? r.kind}, run ${r.runId})` },
      ],
      action: '/_gm/reconciliation/act',
      fields: { mismatch: String(r.id), action, confirm: confirmToken(operator.token, shownOf(r, action)) },
      button: action === 'refund' ? `Refund ${amount}` : 'Credit the order',
      back: BACK,
    }),
  );
}

/**
 * GET /_gm/reconciliation/act?mismatch=&action=refund|credit (refunder): the confirmation page of
 * a money action — amount, currency, rail, player, order — whose form alone acts.
 */
export function reconciliationConfirm(client: ReconciliationClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const target = readTarget(req.query);
    if (target === null || target.action === 'resolve') {
      sendError(res, 400, 'Reconciliation', 'Unknown mismatch or action.', operator);
      return;
    }
    let row;
    try {
      row = await fetchRow(client, operator, target.id);
    } catch (err: unknown) {
      backendFailed(req, res, err, 'Reconciliation', operator);
      return;
    }
    sendConfirmation(res, operator, row, target.action);
  };
}

/**
 * POST /_gm/reconciliation/act (refunder, CSRF): `mismatch` and `action` (refund, credit,
 * resolve). Refund and credit act only with the `confirm` token of their confirmation page for
 * what it showed; without it (a plain POST, a token of another session or of a changed row) the
 * confirmation page is shown and nothing moves. The backend carries the action out through the
 * refund and credit paths, records the resolution and audits it. Shows the outcome with a link
 * back; when another action owns the row (one action per row), what that action did or is doing,
 * by whom and since when.
 */
export function reconciliationAct(client: ReconciliationClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const target = readTarget(body);
    if (target === null) {
      sendError(res, 400, 'Reconciliation', 'Unknown mismatch or action.', operator);
      return;
    }
    const { id, action } = target;
    if (action !== 'resolve') {
      let row;
      try {
        row = await fetchRow(client, operator, id);
      } catch (err: unknown) {
        backendFailed(req, res, err, 'Reconciliation', operator);
        return;
      }
      if (!confirmValid(operator.token, shownOf(row, action), body['confirm'])) {
        const notice =
          body['confirm'] === undefined
            ? html`<p class="notice" id="unconfirmed">Nothing was done: confirm the ${action} below.</p>`
            : html`<p class="error" id="unconfirmed">Nothing was done: the confirmation does not match this mismatch as it is now; check it below and confirm again.</p>`;
        sendConfirmation(res, operator, row, action, notice);
        return;
      }
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
