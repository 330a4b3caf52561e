/** JSON shapes of the gateway's REST API as the page reads them (README "REST API (gateway)"); amounts are decimal strings. */

export interface SessionJson {
  token: string;
  expires_at: string;
  platform: { kind: string | null; subtype: string | null };
  account_id: string;
}

export interface ProfileJson {
  account_id: string;
  display_name: string;
  email: string | null;
  email_confirmed: boolean;
  pending_email: string | null;
  platform: { kind: string | null; subtype: string | null };
  sign_in_providers: string[];
}

export interface WalletJson {
  segments: { segment: string; balance: string; in_debt: boolean }[];
  benefits: { origin: string; no_ads_until: string | null; no_ads_forever: boolean; hints: string; in_debt: boolean }[];
  spend_order: string[];
  can_spend: boolean;
  frozen: boolean;
  trusted: boolean;
}

export interface PriceJson {
  method: string;
  amount: string;
  currency: string;
}

export interface ProductJson {
  product_id: string;
  /** In the page's language (sent as Accept-Language), as is the description. */
  title: string;
  description: string;
  atoms: { kind: string; quantity: string }[];
  prices: PriceJson[];
  /** When a time-limited offer ends (unix seconds); null: not time-limited. */
  available_until_unix: number | null;
  /** Seconds of one period when the product is a monthly pass (a stars subscription); absent or null: one-time. */
  subscription_period_seconds?: number | null;
}

/** One of the player's monthly passes (GET /user/subscriptions). */
export interface SubscriptionJson {
  id: string;
  product_id: string;
  title: string;
  state: 'active' | 'cancelled' | 'expired';
  paid_until: string | null;
  next_renewal: string | null;
  cancelled_at: string | null;
  amount: string;
  currency: string;
  period_seconds: string;
  periods: number;
}

export interface CatalogJson {
  products: ProductJson[];
  purchase_methods: string[];
  email_required: boolean;
  frozen: boolean;
  trusted: boolean;
  /** The server's clock when it answered: an offer's time left counts from it, not from this device's clock. */
  server_now_unix: number;
}

export interface PurchaseJson {
  product_id: string;
  price: string;
  replayed: boolean;
}

export interface OrderJson {
  order_id: string;
  state: string;
  amount: string;
  currency: string;
  chips: string;
  invoice_link: string | null;
  confirmation_url: string | null;
  failure_reason: string | null;
}

/** One entry of GET /user/wallet/history: an order (any state) or a ledger operation that is not an order's credit. */
export interface HistoryEntryJson {
  entry_id: string;
  kind: 'order' | 'grant' | 'spend' | 'purchase' | 'refund' | 'code_grant' | 'make_good' | 'reversal';
  at: string | null;
  product_id: string | null;
  title: string;
  rail: 'stars' | 'card' | null;
  state: string;
  amount: string | null;
  currency: string | null;
  chips: string;
  hints: string;
  no_ads_days: string;
  no_ads_forever: boolean;
  segment: string | null;
  order_id: string | null;
  refunded_at: string | null;
  balance_after: string | null;
  hints_after: string | null;
  in_debt: boolean;
  receipt: boolean;
  refund_receipt: boolean;
  failure_reason: string | null;
}

export interface HistoryJson {
  entries: HistoryEntryJson[];
  next_cursor: string | null;
}

/** POST /user/codes/redeem: what a code granted and where (gateway api/codes/wire.ts). */
export interface CodeRedeemedJson {
  segment: string;
  chips: string;
  hints: string;
  no_ads_days: string;
  balance: string;
}
