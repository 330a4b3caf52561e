/** How one wallet.buy of the soak uses its Idempotency-Key. */
export type BuyPlan =
  | { mode: 'fresh'; key: string }
  /** A key whose first request was answered 200 (its first result is stored): the answer must be `replayed: true`. */
  | { mode: 'repeat'; key: string }
  /** A fresh key sent twice at once (a double click): one of the two spends, the other answers its stored result. */
  | { mode: 'twice'; key: string };

/** Of every 100 buys, this many repeat a stored key... */
export const REPEAT_SHARE = 0.1;
/** ...and this many send a fresh key twice at once. */
export const TWICE_SHARE = 0.05;

/**
 * The soak's Idempotency-Keys per customer. A key becomes repeatable only once a request with it
 * was answered 200, i.e. once the backend stored its first result: a key still in flight has no
 * first result yet (its repeat may reach the backend first and be the one that spends, answered
 * `replayed: false`), and a key whose request failed (a 5xx, a timeout) may never have reached the
 * backend (its repeat then rightly spends). Expecting `replayed: true` for either is the harness's
 * mistake, not the service's; the concurrent case is checked as a pair instead (`duplicatePairProblem`).
 */
export class BuyKeys {
  private readonly stored = new Map<string, string>();

  /** The plan for the next buy of `accountId`; `roll` in [0, 1) picks the mode, `fresh()` makes a new key. */
  plan(accountId: string, roll: number, fresh: () => string): BuyPlan {
    const last = this.stored.get(accountId);
    if (roll < REPEAT_SHARE && last !== undefined) return { mode: 'repeat', key: last };
    if (roll >= REPEAT_SHARE && roll < REPEAT_SHARE + TWICE_SHARE) return { mode: 'twice', key: fresh() };
    return { mode: 'fresh', key: fresh() };
  }

  /** Records that a request of `accountId` with `key` was answered 200: its first result is stored, so it may be repeated. */
  answered(accountId: string, key: string): void {
    this.stored.set(accountId, key);
  }

  /** The key a repeat of `accountId` would use now, if any. */
  repeatable(accountId: string): string | undefined {
    return this.stored.get(accountId);
  }
}

/**
 * What is wrong with the two 200 answers of one key sent twice at once, or undefined: exactly one
 * must have spent (`replayed: false`) and the other answer the same stored result (`replayed: true`).
 */
export function duplicatePairProblem(bodies: readonly [unknown, unknown]): string | undefined {
  const replayed = bodies.map((b) => (typeof b === 'object' && b !== null ? (b as Record<string, unknown>)['replayed'] : undefined));
  const spent = replayed.filter((r) => r === false).length;
  if (spent !== 1 || !replayed.includes(true))
    return `one Idempotency-Key sent twice at once was answered replayed ${JSON.stringify(replayed)} (one spend and one replay expected)`;
  const [a, b] = bodies.map((body) => JSON.stringify({ ...(body as Record<string, unknown>), replayed: null }));
  if (a !== b) return 'one Idempotency-Key sent twice at once was answered two different purchases';
  return undefined;
}
