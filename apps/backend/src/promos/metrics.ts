import { Counter, type Registry } from 'prom-client';

/** Why a redemption attempt ended as it did (a fixed set). */
export type RedeemOutcome = 'granted' | 'not_redeemable' | 'already_redeemed' | 'rate_limited' | 'refused';

/** The promo codes' series. */
export interface PromoMetrics {
  redemptions: Counter<'outcome'>;
}

/**
 * Registers `backend_code_redemptions_total{outcome}`: every redemption attempt by outcome, so a
 * guessing run shows as not_redeemable and rate_limited climbing against granted.
 */
export function createPromoMetrics(registry: Registry): PromoMetrics {
  return {
    redemptions: new Counter({
      name: 'backend_code_redemptions_total',
      help: "Promo code redemption attempts by outcome: granted, not_redeemable (unknown, used up, outside its window or host, or malformed), already_redeemed (the player's own repeat), rate_limited, refused (untrusted, frozen or suspended context).",
      labelNames: ['outcome'],
      registers: [registry],
    }),
  };
}
