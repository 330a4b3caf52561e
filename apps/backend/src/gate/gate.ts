import type { PaymentMethod, PlatformSubtype, Segment, SessionPlatform } from './context.js';

/** What a session context may see and do with the wallet (DESIGN.md "Money and wallet"). */
export interface GateDecision {
  /** Segments (and benefit origins) whose balances are shown. */
  visibleSegments: readonly Segment[];
  /** Segments a chip spend draws from, in order; empty when nothing may be spent. */
  spendOrder: readonly Segment[];
  canSpend: boolean;
  /** Money methods that may buy products here (a provider purchase also needs a confirmed e-mail). */
  canPurchaseMethods: readonly PaymentMethod[];
  /** The segment money purchases made here fund; null when nothing may be bought. */
  fundingSegment: Segment | null;
  /** Balances shown, nothing bought or spent (vk inside iOS, or vk without a known signed subtype). */
  frozen: boolean;
  /** False when the session has no recorded platform. */
  trusted: boolean;
  /** Sign-in providers the profile may offer here; inside a host only e-mail linking. */
  signInProviders: readonly string[];
}

/** The inputs of the gate: the session platform and whether the account has a confirmed e-mail. */
export interface GateContext extends SessionPlatform {
  emailConfirmed: boolean;
}

const ALL: readonly Segment[] = ['direct', 'telegram', 'vk'];

const UNTRUSTED: GateDecision = {
  visibleSegments: ALL,
  spendOrder: [],
  canSpend: false,
  canPurchaseMethods: [],
  fundingSegment: null,
  frozen: false,
  trusted: false,
  signInProviders: ['email'],
};

const TELEGRAM: GateDecision = {
  visibleSegments: ['telegram'],
  spendOrder: ['telegram'],
  canSpend: true,
  canPurchaseMethods: ['xtr'],
  fundingSegment: 'telegram',
  frozen: false,
  trusted: true,
  signInProviders: ['email'],
};

const VK: GateDecision = {
  visibleSegments: ['vk'],
  spendOrder: ['vk'],
  canSpend: true,
  canPurchaseMethods: ['provider'],
  fundingSegment: 'vk',
  frozen: false,
  trusted: true,
  signInProviders: ['email'],
};

const VK_FROZEN: GateDecision = { ...VK, spendOrder: [], canSpend: false, canPurchaseMethods: [], fundingSegment: null, frozen: true };

/**
 * vk by signed subtype. Only a known non-iOS subtype gets the spending row; no subtype (the
 * launch's vk_platform was missing or unknown) is looked up as frozen in `lookup`. Keyed by every
 * subtype, so a new one cannot compile without a decision here.
 */
const VK_BY_SUBTYPE: Readonly<Record<PlatformSubtype, GateDecision>> = { android: VK, web: VK, ios: VK_FROZEN };

const DIRECT: GateDecision = {
  visibleSegments: ALL,
  spendOrder: ALL,
  canSpend: true,
  canPurchaseMethods: ['provider'],
  fundingSegment: 'direct',
  frozen: false,
  trusted: true,
  signInProviders: ['email', 'telegram', 'vk'],
};

/**
 * The store-compliance gate: one pure table lookup on (platform kind, subtype). Host chips are
 * visible and spendable only inside that host; direct draws direct, then telegram, then vk. vk on
 * iOS is frozen, and so is vk without a subtype (fail closed: its signed vk_platform was missing
 * or unknown). The direct subtype is a best-effort client hint, not a store context, so every
 * direct subtype gets the one direct row. No recorded platform is untrusted (view-only). A
 * direct-rail ("provider") purchase additionally needs a confirmed e-mail: `emailRequired` is set
 * when the context offers that method but the account has none, so the buy tab asks for one and
 * the order is refused.
 */
export function gate(ctx: GateContext): GateDecision & { emailRequired: boolean } {
  const row = lookup(ctx);
  return { ...row, emailRequired: row.canPurchaseMethods.includes('provider') && !ctx.emailConfirmed };
}

function lookup({ kind, subtype }: SessionPlatform): GateDecision {
  switch (kind) {
    case null:
      return UNTRUSTED;
    case 'telegram':
      return TELEGRAM;
    case 'vk':
      return subtype === null ? VK_FROZEN : VK_BY_SUBTYPE[subtype];
    case 'direct':
      return DIRECT;
  }
}
