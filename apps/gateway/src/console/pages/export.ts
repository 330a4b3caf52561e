import { once } from 'node:events';
import type { Request, Response } from 'express';
import { encodeTable, fb } from '@wordgame/contracts';
import { asOperator, failureOf, type ConsoleClient } from '../backend.js';
import { encodeFilter, parseFilter } from '../filter.js';
import { consoleHeaders, sendError } from '../layout.js';
import { readChunk, utcTime, writeFilter, type Row } from '../ledger-wire.js';

const COLUMNS = [
  'id',
  'created_at_utc',
  'account_id',
  'kind',
  'wallet_segment',
  'benefit_origin',
  'rail',
  'provider',
  'product_id',
  'chips_delta',
  'money_minor',
  'currency',
  'hints_delta',
  'no_ads_days',
  'no_ads_forever',
  'order_id',
  'refund_id',
  'refunded',
  'note',
];

/** One CSV field: quoted when needed; free text that a spreadsheet would run as a formula is defused. */
export function csvField(value: string, freeText = false): string {
  const v = freeText && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

function csvLine(r: Row): string {
  return `${[
    r.id.toString(),
    utcTime(r.createdUs),
    r.accountId.toString(),
    r.kind,
    r.segment,
    r.benefitOrigin,
    r.rail,
    r.provider,
    r.productId === 0n ? '' : r.productId.toString(),
    r.chipsDelta.toString(),
    r.currency ? r.moneyMinor.toString() : '',
    r.currency,
    r.hintsDelta.toString(),
    r.noAdsDays.toString(),
    String(r.noAdsForever),
    r.orderId,
    r.refundId,
    String(r.refunded),
  ]
    .map((v) => csvField(v))
    .join(',')},${csvField(r.note, true)}\r\n`;
}

/**
 * GET /_gm/ledger/export.csv (viewer): the filter's operations newest first as CSV (amounts in
 * minor units, times in UTC), at most `cap` rows, streamed batch by batch from the backend with
 * backpressure, so memory stays flat; a client that goes away cancels the backend stream.
 */
export function ledgerExport(client: ConsoleClient, cap: number) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const parsed = parseFilter(req.query);
    if ('error' in parsed) {
      sendError(res, 400, 'Export', `Filter refused: ${parsed.error}.`, operator);
      return;
    }
    const f = parsed.filter;
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const body = encodeTable((b) => fb.LedgerExport.createLedgerExport(b, writeFilter(b, f), cap));
    const stream = client.exportLedger({ body }, asOperator(operator.token, abort.signal))[Symbol.asyncIterator]();
    let first: IteratorResult<{ body: Uint8Array }>;
    try {
      first = await stream.next();
    } catch (err: unknown) {
      const failure = failureOf(err);
      sendError(res, failure.status, 'Export', failure.message, operator);
      return;
    }
    consoleHeaders(res);
    res.status(200).type('text/csv; charset=utf-8');
    res.setHeader('content-disposition', `attachment; filename="ledger-${f.from}-${f.to}.csv"`);
    res.setHeader('x-export-cap', String(cap));
    res.setHeader('x-export-filter', encodeFilter(f));
    res.write(`${COLUMNS.join(',')}\r\n`);
    let rows = 0;
    try {
      for (let item = first; !item.done; item = await stream.next()) {
        const text = readChunk(item.value.body).map(csvLine).join('');
        rows += text.length === 0 ? 0 : text.split('\r\n').length - 1;
        if (!res.write(text)) await once(res, 'drain', { signal: abort.signal });
      }
      res.end();
      req.log.info({ operatorId: String(operator.id), rows }, 'console ledger exported');
    } catch (err: unknown) {
      if (!abort.signal.aborted) req.log.error({ err }, 'console export failed mid-stream');
      res.destroy();
    }
  };
}
