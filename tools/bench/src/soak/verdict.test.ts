import { errorVerdict, memorySlackMiB, memoryVerdict, retainedVerdict, thirds } from './verdict.js';

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

  it('the slack is the larger of 10 % of the base and 8 MiB', () => {
    expect(memorySlackMiB(300)).toBe(30);
    expect(memorySlackMiB(50)).toBe(8);
  });

  it('in a long run growth within max(10 %, 8 MiB) of the second third median is flat, beyond it is not', () => {
    const level = (mib: number) => Array<number>(10).fill(mib);
    expect(memoryVerdict([...level(200), ...level(200), ...level(220)], 600).flat).toBe(true);
    expect(memoryVerdict([...level(200), ...level(200), ...level(221)], 600).flat).toBe(false);
    expect(memoryVerdict([...level(50), ...level(50), ...level(58)], 600).flat).toBe(true);
    expect(memoryVerdict([...level(50), ...level(50), ...level(58.5)], 600).flat).toBe(false);
  });

  it('RSS is judged only when a third lasts 200 s or more: a short run sits inside one heap ramp', () => {
    // The backend in a 60 s CI run, every 2 s: V8 growing its heap, 66 MiB between the middle and the end.
    const ramp = Array.from({ length: 30 }, (_, i) => 214 + 4.3 * i);
    expect(memoryVerdict(ramp, 60)).toMatchObject({ judged: false, flat: false });
    expect(memoryVerdict(ramp, 600)).toMatchObject({ judged: true, flat: false });
    expect(memoryVerdict(ramp, 599).judged).toBe(false);
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

describe('retained memory verdict', () => {
  it('memory after a full GC may grow by max(10 %, 8 MiB) from the end of warm-up', () => {
    expect(retainedVerdict(60, 68)).toMatchObject({ growthMiB: 8, allowedMiB: 8, flat: true });
    expect(retainedVerdict(60, 68.5).flat).toBe(false);
    expect(retainedVerdict(200, 220).flat).toBe(true);
    expect(retainedVerdict(200, 221).flat).toBe(false);
    expect(retainedVerdict(200, 150).flat).toBe(true);
  });

  it('a reading that could not be taken is not flat', () => {
    expect(retainedVerdict(Number.NaN, 60).flat).toBe(false);
    expect(retainedVerdict(60, Number.NaN).flat).toBe(false);
  });
});

describe('error verdict', () => {
  it('compares the errors of the last third with the first', () => {
    expect(errorVerdict([0, 0, 0, 0, 0, 0])).toEqual({ firstThird: 0, lastThird: 0, noGrowth: true });
    expect(errorVerdict([3, 0, 0, 5, 1, 1])).toEqual({ firstThird: 3, lastThird: 2, noGrowth: true });
    expect(errorVerdict([0, 1, 0, 0, 0, 2])).toEqual({ firstThird: 1, lastThird: 2, noGrowth: false });
  });
});
