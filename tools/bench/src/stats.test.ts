import fc from 'fast-check';
import { median, percentile, summarize } from './stats.js';

describe('percentile (nearest rank)', () => {
  it('matches worked examples', () => {
    const s = [15, 20, 35, 40, 50];
    expect(percentile(s, 5)).toBe(15);
    expect(percentile(s, 30)).toBe(20);
    expect(percentile(s, 40)).toBe(20);
    expect(percentile(s, 50)).toBe(35);
    expect(percentile(s, 100)).toBe(50);
    expect(percentile([], 50)).toBeUndefined();
    expect(() => percentile(s, 0)).toThrow(RangeError);
  });

  it('returns a sample with at least p % of samples at or below it and fewer than p % strictly below', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1_000 }), { minLength: 1, maxLength: 500 }),
        fc.integer({ min: 1, max: 100 }),
        (values, p) => {
          const sorted = [...values].sort((a, b) => a - b);
          const v = percentile(sorted, p) as number;
          expect(sorted).toContain(v);
          expect(sorted.filter((x) => x <= v).length / sorted.length).toBeGreaterThanOrEqual(p / 100);
          expect(sorted.filter((x) => x < v).length / sorted.length).toBeLessThan(p / 100);
        },
      ),
    );
  });

  it('summarises unsorted samples', () => {
    expect(summarize([3, 1, 2, 4], 2)).toEqual({ count: 4, seconds: 2, perSecond: 2, p50Ms: 2, p99Ms: 4 });
  });
});

describe('median', () => {
  it('takes the middle value, or the mean of the middle two', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});
