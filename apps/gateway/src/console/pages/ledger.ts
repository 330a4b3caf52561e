import type { Request, Response } from 'express';
import { encodeTable, fb } from '@wordgame/contracts';
import { asOperator, failureOf, type ConsoleClient } from '../backend.js';
import { dailyChart } from '../chart.js';
import { encodeFilter, KINDS, parseCursor, parseFilter, RAILS, WALLETS, wireRange, type ConsoleFilter } from '../filter.js';
import { html } from '../../http/index.js';
import { page, send, sendError } from '../layout.js';
import { readPage, utcTime, writeFilter, type Row } from '../ledger-wire.js';
import { formatAmount } from '../money.js';
import { createTranslator } from '@wordgame/i18n';

/** The console's counted words: English (the console's language), plural by the catalogue's CLDR rules. */
const WORDS = createTranslator('en');

/** Rows per ledger page. */
export const PAGE_SIZE = 50;

function filterForm(f: ConsoleFilter) {
  const option = (value: string, current: string, label = value) =>
    html`<option value="${value}"${current === value ? html` selected` : ''}>${label}</option>`;
  return html`<form method="get" action="/_gm/ledger" id="filter">
<label>From (UTC) <input type="date" name="from" value="${f.from}"></label>
<label>To (UTC, inclusive) <input type="date" name="to" value="${f.to}"></label>
<label>Wallet <select name="wallet">${option('', f.wallet, 'any')}${WALLETS.map((w) => option(w, f.wallet))}</select></label>
<label>Rail <select name="rail">${option('', f.rail, 'any')}${RAILS.map((r) => option(r, f.rail))}</select></label>
<label>Kind <select name="kind">${option('', f.kind, 'any')}${KINDS.map((k) => option(k, f.kind))}</select></label>
<label>Account <input name="account" value="${f.account}" inputmode="numeric" size="10"></label>
<button type="submit">Filter</button> <a href="/_gm/ledger">Reset (last 30 days)</a></form>`;
}

function rowHtml(r: Row, canRefund: boolean, viewPath: string) {
  const refundable = canRefund && r.kind === 'purchase' && r.orderId !== '' && !r.refunded;
  return html`<tr data-id="${r.id}"><td>${r.id}</td><td>${utcTime(r.createdUs)}</td><td>${r.accountId}</td><td>${r.kind}</td>
<td>${r.segment || r.benefitOrigin}${r.benefitOrigin && r.benefitOrigin !== r.segment ? html` (benefits: ${r.benefitOrigin})` : ''}</td><td>${r.rail}</td>
<td class="num">${r.chipsDelta}</td><td class="num">${r.currency ? formatAmount(r.moneyMinor, r.currency) : ''}</td><td class="num">${r.hintsDelta}</td>
<td>${r.orderId}${r.refunded ? html` <em>refunded</em>` : ''}</td><td>${r.note}</td>
<td>${refundable ? html`<a class="refund" href="/_gm/ledger/refund?${new URLSearchParams({ order: r.orderId, return: viewPath }).toString()}">Refund</a>` : ''}</td></tr>`;
}

/**
 * GET /_gm/ledger (viewer): the filter form, totals per currency over everything the filter
 * matches, the daily chart, one keyset page of operations newest first, and links (next page,
 * CSV export, refund) all built from the one encoded filter.
 */
export function ledgerPage(client: ConsoleClient, exportCap: number) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const parsed = parseFilter(req.query);
    const cursor = parseCursor(req.query['after']);
    if ('error' in parsed || cursor === undefined) {
      sendError(res, 400, 'Ledger', 'error' in parsed ? `Filter refused: ${parsed.error}.` : 'Malformed page cursor.', operator);
      return;
    }
    const f = parsed.filter;
    const encoded = encodeFilter(f);
    const viewPath = `/_gm/ledger?${encoded}${cursor ? `&after=${cursor.createdUs}.${cursor.id}` : ''}`;
    if (req.originalUrl !== viewPath) {
      // One encoded filter: every view of the ledger has exactly one URL (defaults filled in).
      res.redirect(303, viewPath);
      return;
    }
    let data;
    try {
      const body = encodeTable((b) =>
        fb.LedgerQuery.createLedgerQuery(b, writeFilter(b, f), cursor?.createdUs ?? 0n, cursor?.id ?? 0n, PAGE_SIZE, true),
      );
      data = readPage((await client.queryLedger({ body }, asOperator(operator.token))).body);
    } catch (err: unknown) {
      const failure = failureOf(err);
      if (failure.errorCode === 'internal' || failure.errorCode === 'unavailable') req.log.error({ err }, 'console ledger query failed');
      sendError(res, failure.status, 'Ledger', failure.message, operator);
      return;
    }
    const { fromUnix, toUnix } = wireRange(f);
    const canRefund = operator.roles.includes('refunder');
    send(
      res,
      200,
      page(
        'Ledger',
        html`${filterForm(f)}
<p>All times and dates are UTC. Range ${f.from} to ${f.to} inclusive.</p>
<h2>Totals over the whole filter</h2>
<p id="matched" data-matched="${data.matched}">${WORDS.plural('console.operations_match', data.matched)}</p>
<table id="totals"><tr><th>Currency</th><th>Total</th><th>Operations</th></tr>
${data.totals.map((t) => html`<tr data-currency="${t.currency}" data-minor="${t.amount}"><td>${t.currency}</td><td class="num">${formatAmount(t.amount, t.currency)}</td><td class="num">${t.operations}</td></tr>`)}</table>
${dailyChart(data.daily, fromUnix, toUnix)}
<p><a id="export" href="/_gm/ledger/export.csv?${encoded}">Export CSV</a> — newest first, at most ${exportCap} rows (the cap), times in UTC.</p>
<h2>Operations${cursor ? ' (continued)' : ''}</h2>
<table id="rows"><tr><th>Id</th><th>Time (UTC)</th><th>Account</th><th>Kind</th><th>Wallet</th><th>Rail</th><th>Chips</th><th>Money</th><th>Hints</th><th>Order</th><th>Note</th><th></th></tr>
${data.rows.map((r) => rowHtml(r, canRefund, viewPath))}</table>
<p>${cursor ? html`<a id="first" href="/_gm/ledger?${encoded}">First page</a> ` : ''}${data.next ? html`<a id="next" href="/_gm/ledger?${encoded}&amp;after=${data.next.createdUs}.${data.next.id}">Next page</a>` : ''}</p>`,
        operator,
      ),
    );
  };
}
