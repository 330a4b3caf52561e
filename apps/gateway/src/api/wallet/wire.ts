import { z } from 'zod';
import { ATOM_KINDS, PRICE_METHODS } from '../products.js';
import { bigintString, isoTime, type Wire } from '../wire.js';
import type { CatalogJson, HistoryJson, PurchaseJson, WalletJson } from './codec.js';

/** One building block of a product. */
export const atomWire = z.object({ kind: z.enum(ATOM_KINDS), quantity: bigintString }).strict();
/** One way to pay for a product, in the currency's minor units (XTR and CHIPS: whole units). */
export const priceWire = z.object({ method: z.enum(PRICE_METHODS), amount: bigintString, currency: z.string() }).strict();

/** The caller's wallet; a negative balance or hint count is a debt (`in_debt`). */
export const walletWire = z
  .object({
    segments: z.array(z.object({ segment: z.string(), balance: bigintString, in_debt: z.boolean() }).strict()),
    benefits: z.array(
      z
        .object({ origin: z.string(), no_ads_until: isoTime, no_ads_forever: z.boolean(), hints: bigintString, in_debt: z.boolean() })
        .strict(),
    ),
    spend_order: z.array(z.string()),
    can_spend: z.boolean(),
    frozen: z.boolean(),
    trusted: z.boolean(),
  })
  .strict()
  .meta({ title: 'Wallet' }) satisfies z.ZodType<Wire<WalletJson>>;

/** The catalog as offered in the caller's context. */
export const catalogWire = z
  .object({
    products: z.array(
      z
        .object({
          product_id: bigintString,
          title: z.string(),
          description: z.string(),
          subscription_period_seconds: z
            .number()
            .int()
            .nullable()
            .describe('a monthly pass (stars subscription): seconds of one paid period (2592000), renewed by Telegram; null: one-time'),
          atoms: z.array(atomWire),
          prices: z.array(priceWire),
          available_until_unix: z
            .number()
            .int()
            .nullable()
            .describe('when this time-limited offer ends (unix seconds, exclusive); null: not time-limited'),
        })
        .strict(),
    ),
    purchase_methods: z.array(z.string()),
    email_required: z.boolean(),
    notice: z.string().nullable(),
    frozen: z.boolean(),
    trusted: z.boolean(),
    server_now_unix: z
      .number()
      .int()
      .describe("the server's clock when it answered (unix seconds): time left = available_until_unix - server_now_unix"),
  })
  .strict()
  .meta({ title: 'Catalog' }) satisfies z.ZodType<Wire<CatalogJson>>;

/** A chip purchase; `replayed` marks the stored first answer of a repeated Idempotency-Key. */
export const purchaseWire = z
  .object({
    product_id: bigintString,
    price: bigintString,
    draws: z.array(z.object({ segment: z.string(), amount: bigintString }).strict()),
    benefit_origin: z.string(),
    wallet: walletWire.nullable(),
    replayed: z.boolean(),
  })
  .strict()
  .meta({ title: 'Purchase' }) satisfies z.ZodType<Wire<PurchaseJson>>;

/** One entry of the caller's history (an order, or a ledger operation that is not an order's credit). */
export const historyEntryWire = z
  .object({
    entry_id: z.string(),
    kind: z.enum(['order', 'grant', 'spend', 'purchase', 'refund', 'code_grant', 'make_good', 'reversal']),
    at: isoTime,
    product_id: bigintString.nullable(),
    title: z.string(),
    rail: z.enum(['stars', 'card']).nullable(),
    state: z.string(),
    amount: bigintString.nullable(),
    currency: z.string().nullable(),
    chips: bigintString,
    hints: bigintString,
    no_ads_days: bigintString,
    no_ads_forever: z.boolean(),
    segment: z.string().nullable(),
    order_id: z.string().nullable(),
    refunded_at: isoTime,
    balance_after: bigintString.nullable(),
    hints_after: bigintString.nullable(),
    in_debt: z.boolean(),
    receipt: z.boolean(),
    refund_receipt: z.boolean(),
    failure_reason: z.string().nullable(),
  })
  .strict()
  .meta({ title: 'HistoryEntry' });

/** A page of the caller's history, newest first. */
export const historyWire = z
  .object({ entries: z.array(historyEntryWire), next_cursor: z.string().nullable() })
  .strict()
  .meta({ title: 'History' }) satisfies z.ZodType<Wire<HistoryJson>>;
