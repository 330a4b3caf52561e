/**
 * A seeded pseudo-random generator (mulberry32): the same seed gives the same schedule, so a
 * failing chaos run can be replayed with FAULTS_SEED=<the printed seed>.
 */
export class Rng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
}

/** FAULTS_SEED when set, else a fresh seed (always printed by the suite that uses it). */
export function seedFromEnv(): number {
  const given = process.env['FAULTS_SEED'];
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isInteger(seed) || seed < 0) throw new Error(`FAULTS_SEED must be a non-negative integer (got ${given})`);
    return seed;
  }
  return Math.floor(Math.random() * 2 ** 31);
}
