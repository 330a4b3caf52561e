import type { Segment } from '../gate/index.js';

/** Chips taken from one segment by a spend. */
export interface Draw {
  segment: Segment;
  amount: bigint;
}

/**
 * Splits a chip price across segments in spend order: each segment gives what it holds until the
 * price is covered. A segment in debt (below zero) holds nothing spendable: it is never drawn
 * from and its debt does not offset the others. Returns only non-zero draws (their sum is exactly
 * the price and none exceeds its balance), or null when the segments together hold less.
 */
export function drawInOrder(balances: ReadonlyMap<Segment, bigint>, order: readonly Segment[], price: bigint): Draw[] | null {
  let remaining = price;
  const draws: Draw[] = [];
  for (const segment of order) {
    if (remaining === 0n) break;
    const held = balances.get(segment) ?? 0n;
    const available = held > 0n ? held : 0n;
    const amount = available < remaining ? available : remaining;
    if (amount > 0n) {
      draws.push({ segment, amount });
      remaining -= amount;
    }
  }
  return remaining === 0n ? draws : null;
}

/** The origin credited with a purchase's benefits: the largest draw, the earlier one on a tie. */
export function benefitOriginOf(draws: readonly Draw[]): Segment {
  const [first, ...rest] = draws;
  if (!first) throw new Error('a purchase has at least one draw');
  return rest.reduce((best, d) => (d.amount > best.amount ? d : best), first).segment;
}
