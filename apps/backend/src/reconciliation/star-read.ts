import type { StarTransaction, StarTransactionSource } from './star-source.js';

/** Page size asked of get_star_transactions (the platform's maximum). */
export const STAR_PAGE = 100;

/** Which way the platform's list runs, as far as its dates have shown: 1 oldest first, -1 newest first, 0 not yet known. */
export type StarListOrder = 1 | -1 | 0;

/** What a read of the platform's stars list gave. */
export type StarRead =
  | {
      complete: true;
      /**
       * Every transaction dated at or after `since`, each once, and only those: what a probe or the
       * last page passed before `since` is dropped, so no finding depends on where pages fell.
       */
      transactions: StarTransaction[];
      calls: number;
      order: StarListOrder;
    }
  | { complete: false; reason: string; calls: number; order: StarListOrder };

/** Why a read stopped before it could vouch for the whole range. */
class ReadStopped extends Error {}

const keyOf = (t: StarTransaction) => `${t.kind}:${t.id}`;
const time = (t: StarTransaction) => t.date.getTime();

/**
 * Reads every stars transaction dated at or after `since` (up to the list's newest end when the
 * read runs), whichever order the platform answers in, in at most `maxCalls` page calls.
 *
 * getStarTransactions is documented to answer "in chronological order" with `offset` the number of
 * transactions to skip; what a platform does may differ, so nothing here assumes an order. The order
 * is read off the dates (two different dates in one page, or a page's date against the first
 * transaction's); a list seen in neither order is refused. Then:
 * - newest first: pages from offset 0 until one reaches a date before `since`;
 * - oldest first: `since` is found by galloping and bisecting on page offsets (the old history is
 *   skipped, about 2·log2(n/100) calls), then pages go on to the end of the list;
 * - equal dates alone decide nothing: pages are read on until the order shows, and a boundary test is
 *   always strict (`< since` is outside, a transaction dated exactly `since` is in).
 * Consecutive pages overlap by one transaction, and each page must contain the previous page's last
 * one (by kind and id): that proves no gap between them whatever shifted in between (a newest-first
 * list grows at offset 0 and moves everything on; the overlap's position gives the shift), and the
 * repeated transactions are kept once. A page that does not continue the one before, a list out of
 * date order, or the bound reached answer `complete: false` with the reason, never a partial list
 * that could pass for a whole one.
 */
export async function readStarsSince(source: StarTransactionSource, since: Date, maxCalls: number): Promise<StarRead> {
  const from = since.getTime();
  const seen = new Map<string, StarTransaction>();
  let calls = 0;
  // `as`: both change inside page(), which the compiler's narrowing does not follow.
  let order = 0 as StarListOrder;
  let firstDate = null as number | null;

  /** One page; learns and checks the order from its dates. */
  async function page(offset: number): Promise<StarTransaction[]> {
    if (calls >= maxCalls) throw new ReadStopped(`call bound reached (${maxCalls} calls)`);
    calls += 1;
    const txs = await source.page(offset, STAR_PAGE);
    for (const t of txs) seen.set(keyOf(t), t);
    const dates = txs.map(time);
    if (offset === 0 && firstDate === null) firstDate = dates[0] ?? null;
    const learn = (earlier: number, later: number) => {
      if (earlier === later) return;
      const step: StarListOrder = later > earlier ? 1 : -1;
      if (order === 0) order = step;
      else if (order !== step) throw new ReadStopped(`the list is not in date order (page at offset ${offset})`);
    };
    for (let i = 1; i < dates.length; i += 1) learn(dates[i - 1] as number, dates[i] as number);
    if (offset > 0 && firstDate !== null && dates.length > 0) {
      learn(firstDate, dates[0] as number);
      learn(firstDate, dates[dates.length - 1] as number);
    }
    return txs;
  }

  /**
   * Reads on from `first` (the page at `offset`) with one transaction of overlap until the list
   * ends, or, newest first, until a page reaches before `since`.
   */
  async function chain(offset: number, first: StarTransaction[]): Promise<void> {
    let current = first;
    let at = offset;
    for (;;) {
      const last = current[current.length - 1];
      if (last === undefined || current.length < STAR_PAGE) return;
      if (order === -1 && time(last) < from) return;
      const pos = at + current.length - 1;
      const next = await page(pos);
      const shift = next.findIndex((t) => keyOf(t) === keyOf(last));
      if (shift < 0)
        throw new ReadStopped(`the list changed while it was read (the page at offset ${pos} does not continue the one before)`);
      current = next;
      at = pos;
    }
  }

  try {
    const head = await page(0);
    const last = head[head.length - 1];
    const headFrom = firstDate ?? 0;
    if (last === undefined || head.length < STAR_PAGE) return done();
    const ascendingPast = order === 1 ? time(last) < from : order === 0 && headFrom < from;
    if (!ascendingPast) {
      await chain(0, head);
      return done();
    }
    // Oldest first (or not known yet, every date so far before `since`): find the last index
    // dated before `since` (lo) and one at or after it, or the list's end (hi); then read on from lo.
    const bounds: { lo: number; hi: number } = { lo: head.length - 1, hi: Infinity };
    const narrow = (offset: number, txs: StarTransaction[]) => {
      const j = txs.findIndex((t) => time(t) >= from);
      if (j < 0) {
        if (txs.length > 0) bounds.lo = Math.max(bounds.lo, offset + txs.length - 1);
        if (txs.length < STAR_PAGE) bounds.hi = Math.min(bounds.hi, offset + txs.length);
      } else {
        bounds.hi = Math.min(bounds.hi, offset + j);
        if (j > 0) bounds.lo = Math.max(bounds.lo, offset + j - 1);
      }
    };
    for (let step = STAR_PAGE; bounds.hi === Infinity; step *= 2) {
      const offset = bounds.lo + step;
      narrow(offset, await page(offset));
      // Newest first after all: the head held the newest transactions, every one before `since`.
      if (order === -1) return done();
    }
    while (bounds.hi - bounds.lo > STAR_PAGE - 1) {
      const mid = bounds.lo + Math.floor((bounds.hi - bounds.lo) / 2);
      narrow(mid, await page(mid));
      if (order === -1) return done();
    }
    const start = await page(bounds.lo);
    const before = start[0];
    if (before === undefined || time(before) >= from) {
      throw new ReadStopped(`the list changed while it was read (offset ${bounds.lo} no longer holds a transaction before the window)`);
    }
    await chain(bounds.lo, start);
    return done();
  } catch (err: unknown) {
    if (!(err instanceof ReadStopped)) throw err;
    return { complete: false, reason: err.message, calls, order };
  }

  function done(): StarRead {
    return { complete: true, transactions: [...seen.values()].filter((t) => time(t) >= from), calls, order };
  }
}
