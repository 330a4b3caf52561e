import type { ColumnType, Generated } from 'kysely';
import type { PaymentMethod, PlatformSubtype, Segment, SessionPlatformKind } from '../gate/index.js';
import type { ReconciliationTables } from './reconciliation-schema.js';

/** A timestamptz column: read as Date, written as Date or an SQL default. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** Account lifecycle; a deleted account keeps its row (soft delete) for ledger integrity. */
export type AccountStatus = 'active' | 'suspended' | 'deleted';

/** Mini-app host kinds with their own identities and wallet segments. */
export type PlatformKind = 'telegram' | 'vk';

export interface AccountsTable {
  id: Generated<bigint>;
  status: ColumnType<AccountStatus, AccountStatus | undefined, AccountStatus>;
  suspended_until: Date | null;
  chat_muted: ColumnType<boolean, boolean | undefined, boolean>;
  display_name: ColumnType<string, string | undefined, string>;
  created_at: Timestamp;
  deleted_at: Date | null;
  /** Lower-cased; unique. The sign-in address of a direct account, or a confirmed linked one. */
  email: string | null;
  email_confirmed_at: Date | null;
  /** `scrypt$N$r$p$salt$hash` (base64url parts); null for accounts without a password. */
  password_hash: string | null;
}

export interface PlatformIdentitiesTable {
  id: Generated<bigint>;
  account_id: bigint;
  kind: PlatformKind;
  external_id: string;
  created_at: Timestamp;
}

export interface EmailConfirmationsTable {
  id: Generated<bigint>;
  account_id: bigint;
  email: string;
  /** sha256 hex of the mailed token. */
  token_hash: string;
  created_at: Timestamp;
  expires_at: Date;
  used_at: Date | null;
}

export interface SessionsTable {
  id: Generated<bigint>;
  /** sha256 hex of the opaque bearer token. */
  token_hash: string;
  account_id: bigint;
  /** null = no recorded platform (untrusted session). */
  platform_kind: SessionPlatformKind | null;
  platform_subtype: PlatformSubtype | null;
  created_at: Timestamp;
  expires_at: Date;
}

export interface WalletSegmentsTable {
  account_id: bigint;
  segment: Segment;
  /** Chips; below zero is a debt left by a full refund (0062): nothing is drawn from it. */
  balance: ColumnType<bigint, bigint | undefined, bigint>;
}

export interface BenefitsTable {
  account_id: bigint;
  origin: Segment;
  no_ads_until: Date | null;
  no_ads_forever: ColumnType<boolean, boolean | undefined, boolean>;
  /** Below zero is a debt left by a full refund (0062): no hint is taken from it. */
  hints: ColumnType<bigint, bigint | undefined, bigint>;
}

export type AtomKind = 'chips' | 'no_ads_days' | 'no_ads_forever' | 'hints';

export interface CatalogAtomsTable {
  id: Generated<bigint>;
  kind: AtomKind;
  quantity: bigint;
}

export interface CatalogProductsTable {
  id: Generated<bigint>;
  title: string;
  active: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A product's words in one language (libs/i18n's); the English row's title equals catalog_products.title. */
export interface CatalogProductTextsTable {
  product_id: bigint;
  locale: string;
  title: string;
  description: ColumnType<string, string | undefined, string>;
}

export interface CatalogProductAtomsTable {
  product_id: bigint;
  atom_id: bigint;
}

export interface CatalogPricesTable {
  product_id: bigint;
  method: PaymentMethod;
  amount: bigint;
  currency: string;
}

export type LedgerKind = 'grant' | 'spend' | 'purchase' | 'refund';

/** Append-only: the database refuses UPDATE, DELETE and TRUNCATE. */
export interface LedgerOperationsTable {
  id: Generated<bigint>;
  account_id: bigint;
  kind: LedgerKind;
  segment: Segment | null;
  benefit_origin: Segment | null;
  /** Settling provider; null for a chip spend. */
  rail: string | null;
  provider: string | null;
  refund_id: string | null;
  product_id: bigint | null;
  chips_delta: ColumnType<bigint, bigint | undefined, never>;
  money_minor: bigint | null;
  currency: string | null;
  hints_delta: ColumnType<bigint, bigint | undefined, never>;
  no_ads_days: ColumnType<bigint, bigint | undefined, never>;
  no_ads_forever: ColumnType<boolean, boolean | undefined, never>;
  note: ColumnType<string, string | undefined, never>;
  created_at: ColumnType<Date, Date | undefined, never>;
  /** The paid order a `purchase` or `refund` row belongs to; null otherwise. */
  order_id: ColumnType<string | null, string | null | undefined, never>;
}

export interface BuyRequestsTable {
  account_id: bigint;
  idempotency_key: string;
  product_id: bigint;
  /** The stored first result (see wallet/purchase-record.ts); null while the first request runs. */
  result: ColumnType<unknown, string | null, string>;
  created_at: Timestamp;
}

/** The database as kysely sees it; grows with each migration. */
export interface DB extends ReconciliationTables {
  accounts: AccountsTable;
  platform_identities: PlatformIdentitiesTable;
  email_confirmations: EmailConfirmationsTable;
  sessions: SessionsTable;
  wallet_segments: WalletSegmentsTable;
  benefits: BenefitsTable;
  catalog_atoms: CatalogAtomsTable;
  catalog_products: CatalogProductsTable;
  catalog_product_texts: CatalogProductTextsTable;
  catalog_product_atoms: CatalogProductAtomsTable;
  catalog_prices: CatalogPricesTable;
  ledger_operations: LedgerOperationsTable;
  buy_requests: BuyRequestsTable;
  orders: OrdersTable;
  payment_events: PaymentEventsTable;
  unmatched_payments: UnmatchedPaymentsTable;
  operators: OperatorsTable;
  operator_sessions: OperatorSessionsTable;
  operator_audit: OperatorAuditTable;
  games: GamesTable;
  game_seats: GameSeatsTable;
  game_moves: GameMovesTable;
  hint_allowances: HintAllowancesTable;
  player_stats: PlayerStatsTable;
  friendships: FriendshipsTable;
  blocks: BlocksTable;
}

/** Order rail: platform stars through the bot, or a card through the direct-rail provider. */
export type OrderRail = 'stars' | 'card';
/** See orders/state.ts for the state machine; `expired` = honoured-expired (still creditable). */
export type OrderState = 'pending' | 'paid' | 'failed' | 'expired';
export type PaymentEventKind = 'created' | 'paid' | 'failed' | 'expired' | 'refunded' | 'partial_refund';

export interface OrdersTable {
  /** uuid; also the provider Idempotence-Key, metadata.order_id and the invoice payload. */
  id: string;
  account_id: bigint;
  product_id: bigint;
  title: string;
  rail: OrderRail;
  /** `telegram_stars` or the card provider adapter's name. */
  provider: string;
  /** The channel's merchant shop id (card rail); null for stars. */
  shop: string | null;
  /** The wallet segment (and benefit origin) this order funds. */
  segment: Segment;
  amount: bigint;
  currency: string;
  /** Snapshot of what the pack grants, taken at order time; a refund reverses exactly this. */
  chips: bigint;
  hints: ColumnType<bigint, bigint | undefined, never>;
  no_ads_days: ColumnType<bigint, bigint | undefined, never>;
  no_ads_forever: ColumnType<boolean, boolean | undefined, never>;
  state: ColumnType<OrderState, OrderState | undefined, OrderState>;
  created_at: ColumnType<Date, Date, never>;
  expires_at: ColumnType<Date, Date, never>;
  paid_at: Date | null;
  provider_payment_id: string | null;
  platform_charge_id: string | null;
  invoice_link: string | null;
  confirmation_url: string | null;
  failure_reason: string | null;
  refund_id: string | null;
  refunded_at: Date | null;
  /** Reaper lease: the order is not re-checked with the provider before this time. */
  recheck_after: Date | null;
  /** Stars: an approved pre-checkout holds the order until then (one live approval per order). */
  checkout_hold_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Stars: the platform user who paid the crediting charge (refunds go back to them). */
  platform_user_id: ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
  /** Console refund attempt; the provider idempotence key derives from it (refunds/console.ts). */
  refund_attempt: ColumnType<number, number | undefined, number>;
  /** A console refund's claim: its provider or platform call is in flight (refunds/claim.ts); null when none. */
  refund_claimed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The operator whose press holds the claim (null: none, or a refund asked without an operator). */
  refund_claimed_by: ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
}

export interface PaymentEventsTable {
  id: Generated<bigint>;
  order_id: string;
  kind: PaymentEventKind;
  detail: ColumnType<string, string | undefined, never>;
  created_at: ColumnType<Date, Date | undefined, never>;
}

/** A platform payment that matched no creditable order; an operator follows up. */
export interface UnmatchedPaymentsTable {
  id: Generated<bigint>;
  provider: string;
  platform_charge_id: string;
  /** The order id the payment named (raw, may not be a uuid). */
  order_ref: string;
  amount: bigint;
  platform_user_id: bigint;
  reason: string;
  created_at: ColumnType<Date, Date | undefined, never>;
  /** The automatic return of these stars (see refunds/star-refunds.ts). */
  refund_status: ColumnType<StarRefundStatus, StarRefundStatus | undefined, StarRefundStatus>;
  refund_attempts: ColumnType<number, number | undefined, number>;
  refund_next_at: ColumnType<Date, Date | undefined, Date>;
  refund_error: ColumnType<string | null, string | null | undefined, string | null>;
  refunded_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** pending: to send (due at refund_next_at); refunded: the platform took it back; failed: the platform refused. */
export type StarRefundStatus = 'pending' | 'refunded' | 'failed';

/** A console operator role; each gates its own pages and actions. */
export type OperatorRole = 'viewer' | 'refunder' | 'catalog_editor' | 'moderator';

export interface OperatorsTable {
  id: Generated<bigint>;
  /** Lower-cased sign-in name (an e-mail or a handle); unique. */
  login: string;
  /** `scrypt$N$r$p$salt$hash`, as accounts/password.ts writes it. */
  password_hash: string;
  roles: ColumnType<OperatorRole[], OperatorRole[] | undefined, OperatorRole[]>;
  disabled: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Timestamp;
}

export interface OperatorSessionsTable {
  id: Generated<bigint>;
  /** sha256 hex of the opaque console token. */
  token_hash: string;
  operator_id: bigint;
  created_at: Timestamp;
  expires_at: Date;
  closed_at: Date | null;
}

/** Append-only: the database refuses UPDATE, DELETE and TRUNCATE. */
export interface OperatorAuditTable {
  id: Generated<bigint>;
  /** null when no operator could be identified (e.g. a sign-in with an unknown login). */
  operator_id: bigint | null;
  action: string;
  target: ColumnType<string, string | undefined, never>;
  outcome: string;
  detail: ColumnType<string, string | undefined, never>;
  at: ColumnType<Date, Date | undefined, never>;
}

/** Word game variants; `no_repeat` forbids a word already played in the game. */
export type GameVariant = 'classic' | 'no_repeat';
export type GameStatus = 'active' | 'finished';
export type FinishReason = 'moves_exhausted' | 'resigned' | 'robot_stuck' | 'opponent_deleted';

export interface GamesTable {
  id: Generated<bigint>;
  variant: GameVariant;
  vs_ai: boolean;
  /** Set from the variant at creation; never changes. */
  no_repeat_words: boolean;
  status: ColumnType<GameStatus, GameStatus | undefined, GameStatus>;
  /** Seat to move; null once finished. */
  turn: number | null;
  last_word: string | null;
  moves: ColumnType<number, number | undefined, number>;
  winner: number | null;
  finish_reason: FinishReason | null;
  /** When the robot last moved (vs_ai); the hint idle gate counts from here. */
  last_robot_move_at: Date | null;
  created_at: ColumnType<Date, Date, never>;
  updated_at: ColumnType<Date, Date, Date>;
}

export interface GameSeatsTable {
  game_id: bigint;
  seat: number;
  /** null = the robot. */
  account_id: bigint | null;
  score: ColumnType<number, number | undefined, number>;
  hints_used: ColumnType<number, number | undefined, number>;
}

export interface GameMovesTable {
  game_id: bigint;
  move_no: number;
  seat: number;
  word: string;
  points: number;
  by_robot: ColumnType<boolean, boolean | undefined, never>;
  created_at: ColumnType<Date, Date, never>;
}

/** Daily free hints used per account and UTC day. */
export interface HintAllowancesTable {
  account_id: bigint;
  day: ColumnType<string, string, never>;
  used: number;
}

/** The player's hint statistic (hints used in human games). */
export interface PlayerStatsTable {
  account_id: bigint;
  hints_used: ColumnType<bigint, bigint | undefined, bigint>;
}

/** One row per pair of accounts: the asker is `requester_id`. */
export interface FriendshipsTable {
  requester_id: bigint;
  addressee_id: bigint;
  status: 'pending' | 'accepted';
  created_at: ColumnType<Date, Date, never>;
  accepted_at: Date | null;
}

export interface BlocksTable {
  blocker_id: bigint;
  blocked_id: bigint;
  created_at: ColumnType<Date, Date, never>;
}
