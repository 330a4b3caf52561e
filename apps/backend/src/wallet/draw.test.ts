import fc from 'fast-check';
import { SEGMENTS, type Segment } from '../gate/index.js';
import { benefitOriginOf, drawInOrder } from './draw.js';

const balances = (d: bigint, t: bigint, v: bigint) =>
  new Map<Segment, bigint>([
    ['direct', d],
    ['telegram', t],
    ['vk', v],
  ]);

describe('spend draw split', () => {
  it('draws direct, then telegram, then vk', () => {
    expect(drawInOrder(balances(30n, 50n, 100n), SEGMENTS, 100n)).toEqual([
      { segment: 'direct', amount: 30n },
      { segment: 'telegram', amount: 50n },
      { segment: 'vk', amount: 20n },
    ]);
    expect(drawInOrder(balances(0n, 5n, 0n), SEGMENTS, 5n)).toEqual([{ segment: 'telegram', amount: 5n }]);
    expect(drawInOrder(balances(30n, 50n, 100n), ['telegram'], 51n)).toBeNull();
  });

  it('never draws from a segment in debt, and a debt does not offset the other segments', () => {
    expect(drawInOrder(balances(-50n, 100n, 0n), SEGMENTS, 100n)).toEqual([{ segment: 'telegram', amount: 100n }]);
    expect(drawInOrder(balances(-50n, 60n, 60n), SEGMENTS, 100n)).toEqual([
      { segment: 'telegram', amount: 60n },
      { segment: 'vk', amount: 40n },
    ]);
    expect(drawInOrder(balances(-50n, 100n, 0n), SEGMENTS, 101n)).toBeNull();
    expect(drawInOrder(balances(-50n, 0n, 0n), ['direct'], 1n)).toBeNull();
  });

  it('credits benefits to the largest draw, the earlier on a tie', () => {
    expect(
      benefitOriginOf([
        { segment: 'direct', amount: 10n },
        { segment: 'telegram', amount: 20n },
      ]),
    ).toBe('telegram');
    expect(
      benefitOriginOf([
        { segment: 'direct', amount: 20n },
        { segment: 'vk', amount: 20n },
      ]),
    ).toBe('direct');
  });

  it('sums to the price with no segment overdrawn or in debt drawn from, or refuses exactly when funds are short', () => {
    const amount = fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n });
    const order = fc.shuffledSubarray([...SEGMENTS], { minLength: 1 });
    fc.assert(
      fc.property(amount, amount, amount, order, fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }), (d, t, v, spendOrder, price) => {
        const held = balances(d, t, v);
        const draws = drawInOrder(held, spendOrder, price);
        const available = spendOrder.reduce((sum, s) => sum + ((held.get(s) ?? 0n) > 0n ? (held.get(s) ?? 0n) : 0n), 0n);
        if (draws === null) {
          expect(available < price).toBe(true);
          return;
        }
        expect(draws.reduce((sum, x) => sum + x.amount, 0n)).toBe(price);
        for (const x of draws) {
          expect(x.amount > 0n).toBe(true);
          expect(x.amount <= (held.get(x.segment) ?? 0n)).toBe(true);
          expect(spendOrder).toContain(x.segment);
        }
        expect(new Set(draws.map((x) => x.segment)).size).toBe(draws.length);
      }),
    );
  });
});
