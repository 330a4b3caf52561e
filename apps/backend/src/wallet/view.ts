import type { GateDecision, Segment } from '../gate/index.js';
import type { BenefitRow } from './wallet.store.js';

/** A wallet as one context may see it (wallet.get). */
export interface WalletViewData {
  segments: Array<{ segment: Segment; balance: bigint }>;
  benefits: BenefitRow[];
  spendOrder: Segment[];
  canSpend: boolean;
  frozen: boolean;
  trusted: boolean;
}

/** Projects balances and benefits through the gate: only visible segments and origins, in gate order. */
export function projectWallet(
  decision: GateDecision,
  balances: ReadonlyMap<Segment, bigint>,
  benefits: readonly BenefitRow[],
): WalletViewData {
  return {
    segments: decision.visibleSegments.map((segment) => ({ segment, balance: balances.get(segment) ?? 0n })),
    benefits: decision.visibleSegments.flatMap((origin) => benefits.filter((b) => b.origin === origin)),
    spendOrder: [...decision.spendOrder],
    canSpend: decision.canSpend,
    frozen: decision.frozen,
    trusted: decision.trusted,
  };
}
