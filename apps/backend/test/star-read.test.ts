import fc from 'fast-check';
import { readStarsSince, STAR_PAGE } from '../src/reconciliation/star-read.js';
import type { StarTransaction, StarTransactionSource } from '../src/reconciliation/star-source.js';

/** Property runs on real servers take what a loaded machine gives them; the deadline only catches a hang. */
const PROPERTY_DEADLINE_MS = 600_000;

type Order = 'oldest_first' | 'newest_first';

/**
 * A platform's stars list in memory: kept oldest first, answered in `order`; `beforeCall` runs
 * before each page is cut (new transactions arriving while the list is read).
 */
function platformList(dates: readonly number[], order: Order) {
  const list: StarTransaction[] = [];
  let seq = 0;
  const add = (date: number, kind: 'payment' | 'refund' = 'payment', id = `c${seq}`) => {
    seq += 1;
    list.push({ id, amount: 1n, date: new Date(date * 1000), kind, userId: null, payload: '' });
  };
  for (const [i, d] of dates.entries()) {
    // every fifth is the refund of the one before it: the same id, another kind
    if (i % 5 === 4 && list.length > 0) add(d, 'refund', list[list.length - 1]?.id);
    else add(d);
  }
  const state = {
    list,
    add,
    calls: [] as number[],
    beforeCall: (_call: number) => {},
    source: {
      page(offset: number, limit: number): Promise<StarTransaction[]> {
        state.calls.push(offset);
        state.beforeCall(state.calls.length);
        const view = order === 'oldest_first' ? list : [...list].reverse();
        return Promise.resolve(view.slice(offset, offset + limit).map((t) => ({ ...t })));
      },
    } satisfies StarTransactionSource,
  };
  return state;
}

const key = (t: StarTransaction) => `${t.kind}:${t.id}`;
const at = (seconds: number) => new Date(seconds * 1000);
/** Ascending dates: `n` transactions from `start`, `perSecond` of them in each second. */
const run = (start: number, n: number, perSecond = 1) => Array.from({ length: n }, (_, i) => start + Math.floor(i / perSecond));

describe('readStarsSince: the platform list read whichever order it answers in', () => {
  const orders: Order[] = ['oldest_first', 'newest_first'];

  it.each(orders)('%s: every transaction since the start, once, including one dated exactly at it', async (order) => {
    const p = platformList([...run(1_000, 700), ...run(5_000, 250)], order);
    const read = await readStarsSince(p.source, at(5_000), 1_000);
    if (!read.complete) throw new Error(read.reason);
    const wanted = p.list.filter((t) => t.date.getTime() >= 5_000_000).map(key);
    const got = read.transactions.map(key);
    // only those: what a page or probe passed before the start is dropped, wherever the pages fell
    expect(got.sort()).toEqual(wanted.sort());
    expect(read.order).toBe(order === 'oldest_first' ? 1 : -1);
  });

  it('oldest first: a long history before the window is skipped by galloping and bisecting, not read page by page', async () => {
    const p = platformList([...run(1_000, 100_000), ...run(500_000, 150)], 'oldest_first');
    const read = await readStarsSince(p.source, at(500_000), 1_000);
    if (!read.complete) throw new Error(read.reason);
    expect(read.transactions.filter((t) => t.date.getTime() >= 500_000_000)).toHaveLength(150);
    // 1 000 pages of history: head, ~11 gallops, ~10 bisections, then 3 pages of window and end
    expect(read.calls).toBeLessThanOrEqual(30);
    const newest = await readStarsSince(
      platformList([...run(1_000, 100_000), ...run(500_000, 150)], 'newest_first').source,
      at(500_000),
      1_000,
    );
    expect(newest.calls).toBe(2);
  });

  it.each(orders)('%s: pages of equal dates decide nothing until the order shows, on either side of the start', async (order) => {
    // 230 in one second long before the start, 260 in one second after it: every page in between is all one date
    const p = platformList([...run(100, 230, 1_000), ...run(9_000, 260, 1_000)], order);
    const read = await readStarsSince(p.source, at(5_000), 100);
    if (!read.complete) throw new Error(read.reason);
    expect(read.transactions.filter((t) => t.date.getTime() >= 5_000_000)).toHaveLength(260);
    // the whole list in one second: complete either way, nothing of it in the window or all of it
    const same = platformList(run(100, 430, 1_000), order);
    const before = await readStarsSince(same.source, at(5_000), 100);
    expect(before.complete && before.transactions.filter((t) => t.date.getTime() >= 5_000_000)).toEqual([]);
    const inside = await readStarsSince(platformList(run(100, 430, 1_000), order).source, at(50), 100);
    expect(inside.complete && inside.transactions).toHaveLength(430);
  });

  it.each(orders)(
    '%s: the list growing while read (new ones at the end; newest first shifts every offset) loses and repeats nothing',
    async (order) => {
      const p = platformList(run(1_000, 640, 3), order);
      const before = p.list.filter((t) => t.date.getTime() >= 1_050_000).map(key);
      p.beforeCall = () => {
        let last = (p.list[p.list.length - 1]?.date.getTime() ?? 0) / 1000;
        for (let i = 0; i < 7; i += 1) p.add((last += i % 2));
      };
      const read = await readStarsSince(p.source, at(1_050), 100);
      if (!read.complete) throw new Error(read.reason);
      const got = read.transactions.map(key);
      expect(new Set(got).size).toBe(got.length);
      expect(before.filter((k) => !got.includes(k))).toEqual([]);
    },
  );

  it(
    'property: both orders, ties, refunds sharing ids and growth between calls: complete, nothing missed, nothing twice',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 0, maxLength: 900 }),
          fc.constantFrom<Order>('oldest_first', 'newest_first'),
          fc.integer({ min: 0, max: 2_800 }),
          fc.integer({ min: 0, max: 6 }),
          async (steps, order, sinceAt, growth) => {
            const dates: number[] = [];
            for (const s of steps) dates.push((dates[dates.length - 1] ?? 0) + s);
            const p = platformList(dates, order);
            const before = p.list.filter((t) => t.date.getTime() >= sinceAt * 1000).map(key);
            p.beforeCall = () => {
              let last = (p.list[p.list.length - 1]?.date.getTime() ?? 0) / 1000;
              for (let i = 0; i < growth; i += 1) p.add((last += i % 2));
            };
            const read = await readStarsSince(p.source, at(sinceAt), 500);
            if (!read.complete) throw new Error(`${order}: ${read.reason}`);
            const got = read.transactions.map(key);
            expect(new Set(got).size).toBe(got.length);
            expect(before.filter((k) => !got.includes(k))).toEqual([]);
            const real = new Set(p.list.map(key));
            expect(got.filter((k) => !real.has(k))).toEqual([]);
          },
        ),
        { numRuns: 150 },
      );
    },
    PROPERTY_DEADLINE_MS,
  );

  it.each(orders)('%s: past the call bound the read is incomplete, never a shorter list', async (order) => {
    const p = platformList(run(1_000, 1_000), order);
    const read = await readStarsSince(p.source, at(1_000), 5);
    expect(read).toMatchObject({ complete: false, calls: 5 });
    expect(!read.complete && read.reason).toBe('call bound reached (5 calls)');
    expect(p.calls).toHaveLength(5);
  });

  it.each(orders)('%s: a list that shrinks under the read, or is out of date order, is incomplete', async (order) => {
    const p = platformList(run(1_000, 450), order);
    p.beforeCall = (call) => {
      if (call === 2) p.list.splice(order === 'oldest_first' ? 0 : p.list.length - 150, 150);
    };
    const shrunk = await readStarsSince(p.source, at(1_000), 100);
    expect(!shrunk.complete && shrunk.reason).toMatch(/the list changed while it was read/);

    const mixed = platformList(run(1_000, 300), order);
    const moved = mixed.list.splice(150, 1)[0];
    if (moved) mixed.list.splice(20, 0, moved);
    const unordered = await readStarsSince(mixed.source, at(1_000), 100);
    expect(!unordered.complete && unordered.reason).toMatch(/not in date order/);
  });

  it('asks pages of 100 from offset 0 first', async () => {
    const p = platformList(run(1_000, 10), 'oldest_first');
    await readStarsSince(p.source, at(0), 10);
    expect(p.calls).toEqual([0]);
    expect(STAR_PAGE).toBe(100);
  });
});
