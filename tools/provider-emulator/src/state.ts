import { randomBytes } from 'node:crypto';

/** A configured shop: its Basic-auth credentials and the `test` flag echoed on its objects. */
export interface Shop {
  readonly shopId: string;
  readonly secretKey: string;
  readonly test: boolean;
  /** `recipient.gateway_id` on this shop's payments. */
  readonly gatewayId: string;
}

/** An amount as the API carries it: a two-decimal string and an ISO 4217 currency. */
export interface Amount {
  value: string;
  currency: string;
}

/** Who cancelled a payment: YooKassa, the card network/issuer, or the merchant. */
export type PaymentCancellationParty = 'yoo_money' | 'payment_network' | 'merchant';

/** The payment cancellation reasons YooKassa documents. */
export const PAYMENT_CANCELLATION_REASONS = [
  '3d_secure_failed',
  'call_issuer',
  'canceled_by_merchant',
  'card_expired',
  'country_forbidden',
  'deal_expired',
  'expired_on_capture',
  'expired_on_confirmation',
  'fraud_suspected',
  'general_decline',
  'identification_required',
  'insufficient_funds',
  'internal_timeout',
  'invalid_card_number',
  'invalid_csc',
  'issuer_unavailable',
  'payment_method_limit_exceeded',
  'payment_method_restricted',
  'permission_revoked',
  'unsupported_mobile_operator',
] as const;

/** One of {@link PAYMENT_CANCELLATION_REASONS}. */
export type PaymentCancellationReason = (typeof PAYMENT_CANCELLATION_REASONS)[number];

/** `cancellation_details` of a canceled payment. */
export interface PaymentCancellationDetails {
  party: PaymentCancellationParty;
  reason: PaymentCancellationReason;
}

/** Who cancelled a refund. */
export type RefundCancellationParty = 'yoo_money' | 'refund_network' | 'merchant';

/** The refund cancellation reasons YooKassa documents. */
export const REFUND_CANCELLATION_REASONS = [
  'general_decline',
  'insufficient_funds',
  'rejected_by_payee',
  'yoo_money_account_closed',
] as const;

/** `cancellation_details` of a canceled refund. */
export interface RefundCancellationDetails {
  party: RefundCancellationParty;
  reason: (typeof REFUND_CANCELLATION_REASONS)[number];
}

/** The masked card of a paid payment (only first6/last4 exist, as in the real API). */
export interface Card {
  first6: string;
  last4: string;
  expiry_month: string;
  expiry_year: string;
  card_type: string;
  issuer_country?: string;
  issuer_name?: string;
}

/** YooKassa's payment statuses. */
export type PaymentStatus = 'pending' | 'waiting_for_capture' | 'succeeded' | 'canceled';

/** The payment object exactly as /v3 returns it. */
export interface Payment {
  id: string;
  status: PaymentStatus;
  paid: boolean;
  amount: Amount;
  income_amount?: Amount;
  description?: string;
  recipient: { account_id: string; gateway_id: string };
  payment_method?: { type: 'bank_card'; id: string; saved: boolean; title: string; card: Card };
  captured_at?: string;
  created_at: string;
  expires_at?: string;
  confirmation?: { type: 'redirect'; confirmation_url: string; return_url: string };
  test: boolean;
  refunded_amount?: Amount;
  refundable: boolean;
  receipt_registration?: 'pending' | 'succeeded' | 'canceled';
  metadata: Record<string, string>;
  cancellation_details?: PaymentCancellationDetails;
}

/** YooKassa's refund statuses. */
export type RefundStatus = 'pending' | 'succeeded' | 'canceled';

/** The refund object exactly as /v3 returns it. */
export interface Refund {
  id: string;
  payment_id: string;
  status: RefundStatus;
  cancellation_details?: RefundCancellationDetails;
  receipt_registration?: 'pending' | 'succeeded' | 'canceled';
  created_at: string;
  amount: Amount;
  description?: string;
}

/** A stored payment: the API object plus what the emulator needs to keep it consistent. */
export interface PaymentRecord {
  readonly shopId: string;
  readonly capture: boolean;
  readonly object: Payment;
  /** `amount` in minor units (after a partial capture, the captured amount). */
  amountMinor: bigint;
  /** Sum of succeeded refunds in minor units. */
  refundedMinor: bigint;
  /** The `receipt` the shop sent, as sent, or null. */
  readonly receipt: unknown;
}

/** A stored refund. */
export interface RefundRecord {
  readonly shopId: string;
  readonly object: Refund;
  readonly amountMinor: bigint;
  readonly receipt: unknown;
}

/** What the next refund creations do (chosen by the control API). */
export type RefundOutcome = 'succeeded' | 'pending' | 'canceled' | 'error500';

const DEFAULT_REFUND_OUTCOME = { outcome: 'succeeded', remaining: null, details: null } as const satisfies EmulatorState['refundOutcome'];

/**
 * The emulator's in-memory world: shops (fixed at start) and the payments and refunds created
 * since the last reset. Domain modules read and mutate it; nothing else holds objects.
 */
export class EmulatorState {
  readonly shops: ReadonlyMap<string, Shop>;
  readonly payments = new Map<string, PaymentRecord>();
  readonly refunds = new Map<string, RefundRecord>();
  /** Outcome of the next refund creations; `remaining` null means until changed. */
  refundOutcome: { outcome: RefundOutcome; remaining: number | null; details: RefundCancellationDetails | null } = DEFAULT_REFUND_OUTCOME;
  /** Public base URL of the server (no trailing slash), set once it listens. */
  baseUrl = '';

  constructor(
    shops: readonly Shop[],
    /** Fee YooKassa keeps, in basis points: `income_amount = amount - fee`. */
    readonly feeBasisPoints: number,
  ) {
    this.shops = new Map(shops.map((shop) => [shop.shopId, shop]));
  }

  /** Forgets every payment and refund and restores the default refund outcome. */
  reset(): void {
    this.payments.clear();
    this.refunds.clear();
    this.refundOutcome = DEFAULT_REFUND_OUTCOME;
  }
}

/**
 * A new object id shaped like YooKassa's (36 chars, hex, time-prefixed:
 * "2c79d5a4-000f-5000-9000-1f2b3a4c5d6e"); `kind` is the second group (000f payments, 0015 refunds).
 */
export function newObjectId(kind: '000f' | '0015'): string {
  const seconds = Math.floor(Date.now() / 1000)
    .toString(16)
    .padStart(8, '0')
    .slice(-8);
  const random = randomBytes(8).toString('hex');
  const variant = '89ab'[Number.parseInt(random.slice(0, 1), 16) % 4] ?? '8';
  return `${seconds}-${kind}-5000-${variant}${random.slice(1, 4)}-${random.slice(4, 16)}`;
}

/** Current time as the API writes it ("2024-05-01T10:00:00.123Z"). */
export function nowIso(): string {
  return new Date().toISOString();
}
