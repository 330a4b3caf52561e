import { z } from 'zod';
import { bigintString } from '../wire.js';

/** An ISO 8601 UTC timestamp as the backend's export writes it (`Date.toISOString`). */
const at = z
  .string()
  .regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/)
  .meta({ format: 'date-time' });

const profileWire = z
  .object({
    account_id: bigintString,
    status: z.enum(['active', 'suspended', 'deleted']),
    display_name: z.string(),
    email: z.string().nullable(),
    email_confirmed_at: at.nullable(),
    pending_emails: z.array(z.object({ email: z.string(), requested_at: at, expires_at: at }).strict()),
    chat_muted: z.boolean(),
    suspended_until: at.nullable(),
    created_at: at,
    deleted_at: at.nullable(),
  })
  .strict();

const identityWire = z.object({ kind: z.enum(['telegram', 'vk']), external_id: z.string(), linked_at: at }).strict();

const sessionWire = z
  .object({ platform: z.string().nullable(), subtype: z.string().nullable(), created_at: at, expires_at: at })
  .strict()
  .describe('An open session: where and when (never its token).');

const walletWire = z
  .object({
    segments: z.array(z.object({ segment: z.string(), chips: bigintString }).strict()),
    benefits: z.array(
      z.object({ origin: z.string(), no_ads_until: at.nullable(), no_ads_forever: z.boolean(), hints: bigintString }).strict(),
    ),
  })
  .strict()
  .describe('Chips per wallet segment and benefits per origin; below zero is a debt left by a refund.');

const orderWire = z
  .object({
    id: z.string(),
    product_id: bigintString,
    title: z.string(),
    rail: z.string(),
    provider: z.string(),
    segment: z.string(),
    amount: bigintString.describe('the price in minor units of `currency` (whole stars for XTR)'),
    currency: z.string(),
    chips: bigintString,
    hints: bigintString,
    no_ads_days: bigintString,
    no_ads_forever: z.boolean(),
    state: z.string(),
    failure_reason: z.string().nullable(),
    platform_charge_id: z.string().nullable(),
    provider_payment_id: z.string().nullable(),
    refund_id: z.string().nullable(),
    created_at: at,
    paid_at: at.nullable(),
    refunded_at: at.nullable(),
    events: z.array(z.object({ kind: z.string(), detail: z.string(), at }).strict()),
  })
  .strict();

const ledgerWire = z
  .object({
    id: bigintString,
    kind: z.string(),
    segment: z.string().nullable(),
    benefit_origin: z.string().nullable(),
    rail: z.string().nullable(),
    provider: z.string().nullable(),
    order_id: z.string().nullable(),
    product_id: bigintString.nullable(),
    chips_delta: bigintString,
    money_minor: bigintString.nullable().describe('money in minor units of `currency`'),
    currency: z.string().nullable(),
    hints_delta: bigintString,
    no_ads_days: bigintString,
    no_ads_forever: z.boolean(),
    refund_id: z.string().nullable(),
    note: z.string(),
    created_at: at,
  })
  .strict();

const supportCaseWire = z
  .object({
    code: z.string(),
    platform: z.string(),
    platform_charge_id: z.string().nullable(),
    order_id: z.string().nullable(),
    language: z.string(),
    text: z.string(),
    state: z.string(),
    opened_at: at,
    resolved_at: at.nullable(),
    events: z.array(z.object({ kind: z.string(), text: z.string(), at }).strict()),
  })
  .strict();

const subscriptionWire = z
  .object({
    subscription_id: bigintString,
    product_id: bigintString,
    first_order_id: z.string(),
    amount: bigintString,
    currency: z.string(),
    paid_until: at,
    cancelled_at: at.nullable(),
    started_at: at,
    periods: z.array(z.object({ order_id: z.string(), renewal: z.boolean(), start: at, end: at, refunded_at: at.nullable() }).strict()),
  })
  .strict();

/**
 * The player's data export (GET /api/v1/user/export; the console's "Export data" downloads the
 * same document). One key per section, each the section of the backend module that keeps that data
 * (docs/operating/privacy.md); money and counters are integer strings in minor units.
 */
export const accountExportWire = z
  .object({
    format: z.literal(1),
    exported_at: at,
    profile: profileWire,
    identities: z.array(identityWire),
    sessions: z.array(sessionWire),
    wallet: walletWire,
    orders: z.array(orderWire),
    ledger: z.array(ledgerWire),
    support_cases: z
      .array(supportCaseWire)
      .describe("The player's support cases, with their history (texts erased with the account are empty)."),
    subscriptions: z.array(subscriptionWire).describe("The player's monthly passes (stars subscriptions) with their paid periods."),
  })
  .strict()
  .meta({ title: 'AccountExport' });

/** The export as the gateway relays it. */
export type AccountExportJson = z.infer<typeof accountExportWire>;
