import type { Builder } from 'flatbuffers';
import { decodeTable, fb } from '@wordgame/contracts';
import { wireRange, type ConsoleFilter } from './filter.js';

/** Writes the backend LedgerFilter table of a console filter. */
export function writeFilter(b: Builder, f: ConsoleFilter): number {
  const { fromUnix, toUnix, accountId } = wireRange(f);
  const wallet = b.createString(f.wallet);
  const rail = b.createString(f.rail);
  const kind = b.createString(f.kind);
  return fb.LedgerFilter.createLedgerFilter(b, fromUnix, toUnix, wallet, rail, kind, accountId);
}

/** One ledger row as the console shows and exports it. */
export interface Row {
  id: bigint;
  createdUs: bigint;
  accountId: bigint;
  kind: string;
  segment: string;
  benefitOrigin: string;
  rail: string;
  provider: string;
  productId: bigint;
  chipsDelta: bigint;
  moneyMinor: bigint;
  currency: string;
  hintsDelta: bigint;
  noAdsDays: bigint;
  noAdsForever: boolean;
  orderId: string;
  refundId: string;
  refunded: boolean;
  note: string;
}

export function readRow(r: InstanceType<typeof fb.LedgerRow>): Row {
  return {
    id: r.id(),
    createdUs: r.createdAtUs(),
    accountId: r.accountId(),
    kind: r.kind() ?? '',
    segment: r.segment() ?? '',
    benefitOrigin: r.benefitOrigin() ?? '',
    rail: r.rail() ?? '',
    provider: r.provider() ?? '',
    productId: r.productId(),
    chipsDelta: r.chipsDelta(),
    moneyMinor: r.moneyMinor(),
    currency: r.currency() ?? '',
    hintsDelta: r.hintsDelta(),
    noAdsDays: r.noAdsDays(),
    noAdsForever: r.noAdsForever(),
    orderId: r.orderId() ?? '',
    refundId: r.refundId() ?? '',
    refunded: r.refunded(),
    note: r.note() ?? '',
  };
}

function rowsOf(length: number, at: (i: number) => InstanceType<typeof fb.LedgerRow> | null): Row[] {
  const rows: Row[] = [];
  for (let i = 0; i < length; i += 1) {
    const r = at(i);
    if (r) rows.push(readRow(r));
  }
  return rows;
}

/** A decoded LedgerPage. */
export function readPage(body: Uint8Array) {
  return decodeTable(
    body,
    (bb) => fb.LedgerPage.getRootAsLedgerPage(bb),
    (t) => ({
      rows: rowsOf(t.rowsLength(), (i) => t.rows(i)),
      totals: Array.from({ length: t.totalsLength() }, (_, i) => ({
        currency: t.totals(i)?.currency() ?? '',
        amount: t.totals(i)?.amount() ?? 0n,
        operations: t.totals(i)?.operations() ?? 0n,
      })),
      daily: Array.from({ length: t.dailyLength() }, (_, i) => ({
        dayUnix: t.daily(i)?.dayUnix() ?? 0n,
        currency: t.daily(i)?.currency() ?? '',
        amount: t.daily(i)?.amount() ?? 0n,
      })),
      matched: t.matched(),
      next: t.hasMore() ? { createdUs: t.nextCreatedUs(), id: t.nextId() } : null,
    }),
  );
}

/** The rows of one exported LedgerChunk. */
export function readChunk(body: Uint8Array): Row[] {
  return decodeTable(
    body,
    (bb) => fb.LedgerChunk.getRootAsLedgerChunk(bb),
    (t) => rowsOf(t.rowsLength(), (i) => t.rows(i)),
  );
}

/** ISO-8601 UTC time of a microsecond timestamp, with the microseconds. */
export function utcTime(us: bigint): string {
  const ms = us / 1000n;
  const iso = new Date(Number(ms)).toISOString();
  return `${iso.slice(0, 19)}.${(us % 1_000_000n).toString().padStart(6, '0')}Z`;
}
