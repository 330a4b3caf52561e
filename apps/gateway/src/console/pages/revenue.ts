import type { Request, Response } from 'express';
import { createClient, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { html, type SafeHtml } from '../../http/index.js';
import { asOperator, consoleTransport, failureOf } from '../backend.js';
import { dailyChart, type DayTotal } from '../chart.js';
import { parseFilter, wireRange, type ConsoleFilter } from '../filter.js';
import { consoleHeaders, page, send, sendError } from '../layout.js';
import { formatAmount } from '../money.js';
import type { ConsoleOperator } from '../session.js';
import { csvField } from './export.js';

/** The backend's RevenueService (the revenue page). */
export type RevenueClient = Client<typeof backendApi.RevenueService>;

/** A RevenueService client over the console's backend connections. */
export function createRevenueClient(urls: string | readonly string[], token: string): RevenueClient {
  return createClient(backendApi.RevenueService, consoleTransport(urls, token, 15_000));
}

/** One (UTC day, rail, product, currency) line of the report. */
export interface RevenueLine {
  dayUnix: bigint;
  rail: string;
  productId: bigint;
  title: string;
  currency: string;
  gross: bigint;
  refunds: bigint;
  net: bigint;
  purchases: bigint;
  refundCount: bigint;
}

interface Report {
  lines: RevenueLine[];
  fromUnix: bigint;
  toUnix: bigint;
  rollupEndUnix: bigint;
}

async function fetchReport(client: RevenueClient, operator: ConsoleOperator, fromUnix: bigint, toUnix: bigint): Promise<Report> {
  const res = await client.queryRevenue(
    { body: encodeTable((b) => fb.RevenueQuery.createRevenueQuery(b, fromUnix, toUnix)) },
    asOperator(operator.token),
  );
  return decodeTable(
    res.body,
    (bb) => fb.RevenueReport.getRootAsRevenueReport(bb),
    (t) => ({
      fromUnix: t.fromUnix(),
      toUnix: t.toUnix(),
      rollupEndUnix: t.rollupEndUnix(),
      lines: Array.from({ length: t.rowsLength() }, (_, i) => {
        const r = t.rows(i);
        return {
          dayUnix: r?.dayUnix() ?? 0n,
          rail: r?.rail() ?? '',
          productId: r?.productId() ?? 0n,
          title: r?.productTitle() ?? '',
          currency: r?.currency() ?? '',
          gross: r?.gross() ?? 0n,
          refunds: r?.refunds() ?? 0n,
          net: r?.net() ?? 0n,
          purchases: r?.purchases() ?? 0n,
          refundCount: r?.refundCount() ?? 0n,
        };
      }),
    }),
  );
}

type Sum = Pick<RevenueLine, 'currency' | 'gross' | 'refunds' | 'net' | 'purchases' | 'refundCount'>;

/** Sums lines per `key` and currency (never across currencies), in first-seen key order, currencies sorted. */
function sumBy(lines: readonly RevenueLine[], key: (l: RevenueLine) => string): Array<{ key: string; sum: Sum }> {
  const out = new Map<string, { key: string; sum: Sum }>();
  for (const l of lines) {
    const k = `${key(l)}\u0000${l.currency}`;
    const s = out.get(k) ?? { key: key(l), sum: { currency: l.currency, gross: 0n, refunds: 0n, net: 0n, purchases: 0n, refundCount: 0n } };
    s.sum.gross += l.gross;
    s.sum.refunds += l.refunds;
    s.sum.net += l.net;
    s.sum.purchases += l.purchases;
    s.sum.refundCount += l.refundCount;
    out.set(k, s);
  }
  return [...out.values()].sort((a, b) => (a.key === b.key ? (a.sum.currency < b.sum.currency ? -1 : 1) : a.key < b.key ? -1 : 1));
}

const isoDay = (unix: bigint) => new Date(Number(unix) * 1000).toISOString().slice(0, 10);
const productName = (l: Pick<RevenueLine, 'productId' | 'title'>) =>
  l.productId === 0n ? 'no product' : `${l.title || 'product'} (#${l.productId.toString()})`;
const moneyCells = (s: Sum) =>
  html`<td>${s.currency}</td><td class="num" data-gross="${s.gross.toString()}">${formatAmount(s.gross, s.currency)}</td><td class="num">${s.purchases}</td><td class="num" data-refunds="${s.refunds.toString()}">${formatAmount(s.refunds, s.currency)}</td><td class="num">${s.refundCount}</td><td class="num" data-net="${s.net.toString()}">${formatAmount(s.net, s.currency)}</td>`;
const moneyHead = html`<th>Currency</th><th>Gross</th><th>Purchases</th><th>Refunds</th><th>Refunded</th><th>Net</th>`;

function sumTable(id: string, label: string, rows: Array<{ key: string; sum: Sum }>): SafeHtml {
  if (rows.length === 0) return html``;
  return html`<table id="${id}" class="fit"><tr><th>${label}</th>${moneyHead}</tr>
${rows.map((r) => html`<tr data-key="${r.key}" data-currency="${r.sum.currency}"><td>${r.key}</td>${moneyCells(r.sum)}</tr>`)}</table>`;
}

/**
 * The range of the request (`from`, `to`) and its report, for the page and the CSV alike; an
 * invalid range (400) or a backend failure (logged when unexpected) is answered here and nothing
 * is returned.
 */
async function loadReport(
  client: RevenueClient,
  req: Request,
  res: Response,
): Promise<{ operator: ConsoleOperator; filter: ConsoleFilter; report: Report } | undefined> {
  const operator = req.operator;
  if (!operator) return undefined;
  const parsed = parseFilter({ from: req.query['from'], to: req.query['to'] });
  if ('error' in parsed) {
    sendError(res, 400, 'Revenue', `Range refused: ${parsed.error}.`, operator);
    return undefined;
  }
  const range = wireRange(parsed.filter);
  try {
    return { operator, filter: parsed.filter, report: await fetchReport(client, operator, range.fromUnix, range.toUnix) };
  } catch (err: unknown) {
    const failure = failureOf(err);
    if (failure.status === 502) req.log.error({ err }, 'console revenue failed');
    sendError(res, failure.status, 'Revenue', failure.message, operator);
    return undefined;
  }
}

/**
 * GET /_gm/revenue?from=&to= (viewer): revenue over whole UTC days (default the last 30, today
 * included; `to` inclusive) — totals, per rail, per product and per day, each per currency (never
 * summing two currencies), gross, refunds and net (gross minus refunds); a chart of net per day and
 * currency; a CSV download of the same lines. Closed days come from the ledger's daily rollup,
 * today's open day from the ledger rows. The header links the subscription and code reports.
 */
export function revenuePage(client: RevenueClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const loaded = await loadReport(client, req, res);
    if (!loaded) return;
    const { operator, filter: f, report } = loaded;
    const q = new URLSearchParams({ from: f.from, to: f.to }).toString();
    const netDays: DayTotal[] = sumBy(report.lines, (l) => l.dayUnix.toString().padStart(12, '0')).map((r) => ({
      dayUnix: BigInt(r.key),
      currency: r.sum.currency,
      amount: r.sum.net,
    }));
    const body = html`<p id="reports"><a href="/_gm/subscriptions">Subscriptions</a> · <a href="/_gm/codes">Code redemptions</a> · <a id="csv" href="/_gm/revenue.csv?${q}">Download CSV</a></p>
<form method="get" action="/_gm/revenue" id="range"><label>From (UTC) <input type="date" name="from" value="${f.from}"></label> <label>To (UTC, inclusive) <input type="date" name="to" value="${f.to}"></label> <button type="submit">Show</button></form>
<p>Purchases (gross) and refunds per currency, from the ledger: net = gross − refunds. Amounts in one currency are never added to another's. Closed days are read from the daily rollup, ${report.rollupEndUnix < report.toUnix ? html`from ${isoDay(report.rollupEndUnix)} on (today, still open) from the ledger rows` : 'every day of this range'}.</p>
${report.lines.length === 0 ? html`<p id="no-revenue">No purchases or refunds from ${f.from} to ${f.to}.</p>` : ''}
<h2>Net per day</h2>
${dailyChart(netDays, report.fromUnix, report.toUnix)}
<h2>Totals</h2>
${sumTable(
  'totals',
  'Range',
  sumBy(report.lines, () => `${f.from} to ${f.to}`),
)}
<h2>Per rail</h2>
${sumTable(
  'by-rail',
  'Rail',
  sumBy(report.lines, (l) => l.rail || 'none'),
)}
<h2>Per product</h2>
${sumTable('by-product', 'Product', sumBy(report.lines, productName))}
<h2>Per day, rail and product</h2>
${
  report.lines.length === 0
    ? ''
    : html`<table id="lines" class="fit"><tr><th>Day (UTC)</th><th>Rail</th><th>Product</th>${moneyHead}</tr>
${report.lines.map((l) => html`<tr data-day="${isoDay(l.dayUnix)}" data-rail="${l.rail}" data-product="${l.productId.toString()}" data-currency="${l.currency}"><td>${isoDay(l.dayUnix)}</td><td>${l.rail}</td><td>${productName(l)}</td>${moneyCells(l)}</tr>`)}</table>`
}`;
    send(res, 200, page('Revenue', body, operator));
  };
}

/** The CSV columns of GET /_gm/revenue.csv: amounts in minor units of `currency`. */
export const REVENUE_CSV_COLUMNS = [
  'day_utc',
  'rail',
  'product_id',
  'product_title',
  'currency',
  'purchases',
  'gross_minor',
  'refunds',
  'refunds_minor',
  'net_minor',
];

/** GET /_gm/revenue.csv?from=&to= (viewer): the report's lines (one per day, rail, product and currency) as CSV. */
export function revenueCsv(client: RevenueClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const loaded = await loadReport(client, req, res);
    if (!loaded) return;
    const { operator, filter: f, report } = loaded;
    const lines = report.lines.map(
      (l) =>
        `${[isoDay(l.dayUnix), l.rail, l.productId === 0n ? '' : l.productId.toString()].map((v) => csvField(v)).join(',')},${csvField(l.title, true)},${[
          l.currency,
          l.purchases.toString(),
          l.gross.toString(),
          l.refundCount.toString(),
          l.refunds.toString(),
          l.net.toString(),
        ]
          .map((v) => csvField(v))
          .join(',')}\r\n`,
    );
    consoleHeaders(res);
    res.status(200).type('text/csv; charset=utf-8');
    res.setHeader('content-disposition', `attachment; filename="revenue-${f.from}-${f.to}.csv"`);
    res.send(`${REVENUE_CSV_COLUMNS.join(',')}\r\n${lines.join('')}`);
    req.log.info({ operatorId: String(operator.id), lines: lines.length }, 'console revenue exported');
  };
}
