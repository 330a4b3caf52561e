import { errorVerdict, memorySlackMiB, memoryVerdict, thirds } from './verdict.js';

/** A V8-like RSS sawtooth: ramps by `step` per sample from `floor`, dropping back every `period` samples. */
const sawtooth = (n: number, floor: number, step: number, period: number, leakPerSample = 0) =>
  Array.from({ length: n }, (_, i) => floor + step * (i % period) + leakPerSample * i);

describe('thirds', () => {
  it('cuts in time order into parts of as equal length as possible', () => {
    expect(thirds([1, 2, 3, 4, 5, 6, 7, 8, 9])).toEqual([
      [1, 2, 3],
      [4, 5, 6],
      [7, 8, 9],
    ]);
    expect(thirds([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).map((t) => t.length)).toEqual([3, 4, 3]);
    expect(thirds([])).toEqual([[], [], []]);
  });
});

describe('memory verdict', () => {
  it('a level series is flat; first, peak and last are reported', () => {
    const v = memoryVerdict([90, 100, 101, 100, 102, 101, 100, 101, 102], 600);
    expect(v).toMatchObject({
      firstMiB: 90,
      peakMiB: 102,
      lastMiB: 102,
      secondThirdMedianMiB: 101,
      lastThirdMedianMiB: 101,
      growthMiB: 0,
      flat: true,
    });
  });

  it('the slack is the largest of 10 % of M2, 8 MiB and one heap ramp scaled to the length of a third', () => {
    expect(memorySlackMiB(300, 200)).toBe(30);
    expect(memorySlackMiB(50, 200)).toBe(8);
    expect(memorySlackMiB(50, 20)).toBe(64);
    expect(memorySlackMiB(50, 40)).toBe(40);
    expect(memorySlackMiB(50, 100)).toBe(16);
  });

  it('in a long run growth within max(10 %, 8 MiB) of the second third median is flat, beyond it is not', () => {
    const level = (mib: number) => Array<number>(10).fill(mib);
    expect(memoryVerdict([...level(200), ...level(200), ...level(220)], 600).flat).toBe(true);
    expect(memoryVerdict([...level(200), ...level(200), ...level(221)], 600).flat).toBe(false);
    expect(memoryVerdict([...level(50), ...level(50), ...level(58)], 600).flat).toBe(true);
    expect(memoryVerdict([...level(50), ...level(50), ...level(58.5)], 600).flat).toBe(false);
  });

  it('a short run tolerates one heap ramp after a memory-reducer release, not a leak', () => {
    // The bot in a 60 s run, every 2 s: released at 12 s, climbing back 76 -> 122 MiB until 46 s, then level.
    const bot = [
      84, 86, 90, 92, 98, 100, 76, 80, 84, 88, 89, 93, 96, 97, 99, 101, 104, 106, 112, 114, 119, 120, 121, 122, 122, 122, 122, 122, 122,
      122,
    ];
    const v = memoryVerdict(bot, 60);
    expect(v.growthMiB).toBeGreaterThan(20);
    expect(v.flat).toBe(true);
    expect(memoryVerdict(bot, 600).flat).toBe(false);
    // 2.5 MiB/s on top of the ramp: a gross leak, which is all a 60 s run is meant to catch.
    const leak = bot.map((x, i) => x + 5 * i);
    expect(memoryVerdict(leak, 60).flat).toBe(false);
  });

  it('a leak under a GC sawtooth fails a long run', () => {
    expect(memoryVerdict(sawtooth(120, 100, 2, 10), 600).flat).toBe(true);
    const leaking = memoryVerdict(sawtooth(120, 100, 2, 10, 0.5), 600);
    expect(leaking.growthMiB).toBeGreaterThan(leaking.allowedMiB);
    expect(leaking.flat).toBe(false);
  });

  it('fewer than three samples in a third cannot be judged flat', () => {
    expect(memoryVerdict([100, 100, 100, 100, 100, 100], 600).flat).toBe(false);
    expect(memoryVerdict([], 600).flat).toBe(false);
  });
});

describe('error verdict', () => {
  it('compares the errors of the last third with the first', () => {
    expect(errorVerdict([0, 0, 0, 0, 0, 0])).toEqual({ firstThird: 0, lastThird: 0, noGrowth: true });
    expect(errorVerdict([3, 0, 0, 5, 1, 1])).toEqual({ firstThird: 3, lastThird: 2, noGrowth: true });
    expect(errorVerdict([0, 1, 0, 0, 0, 2])).toEqual({ firstThird: 1, lastThird: 2, noGrowth: false });
  });
});
