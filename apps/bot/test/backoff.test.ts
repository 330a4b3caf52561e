import fc from 'fast-check';
import { Backoff } from '../src/support/backoff.js';

describe('reconnect backoff (gRPC: initial, x1.6, ±20 % jitter, capped)', () => {
  it('keeps every delay within ±20 % of min(initial x 1.6^n, max), and reset starts over', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5_000 }),
        fc.integer({ min: 1, max: 200_000 }),
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 1, maxLength: 40 }),
        (initialMs, maxMs, randoms) => {
          let i = 0;
          const backoff = new Backoff({ initialMs, maxMs, random: () => randoms[i++ % randoms.length]! });
          randoms.forEach((_, n) => {
            const base = Math.min(initialMs * 1.6 ** n, maxMs);
            const delay = backoff.next();
            expect(delay).toBeGreaterThanOrEqual(Math.floor(base * 0.8));
            expect(delay).toBeLessThanOrEqual(Math.ceil(base * 1.2));
          });
          backoff.reset();
          const first = backoff.next();
          expect(first).toBeGreaterThanOrEqual(Math.floor(Math.min(initialMs, maxMs) * 0.8));
          expect(first).toBeLessThanOrEqual(Math.ceil(Math.min(initialMs, maxMs) * 1.2));
        },
      ),
    );
  });

  it('uses gRPC defaults: 1 s, 1.6 s, 2.56 s ... without jitter at the midpoint', () => {
    const backoff = new Backoff({ initialMs: 1_000, maxMs: 120_000, random: () => 0.5 });
    expect(Array.from({ length: 4 }, () => backoff.next())).toEqual([1_000, 1_600, 2_560, 4_096]);
  });
});
