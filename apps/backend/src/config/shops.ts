import { z } from 'zod';

/**
 * The currencies a card shop can settle in (ISO 4217, two-decimal minor units; the adapter's amount
 * table has each). A shop accepts a payment only in its own account's currency: RUB for a shop of a
 * Russian merchant, the only kind YooKassa signs up, so RUB unless the entry names another.
 */
export const SETTLEMENT_CURRENCIES = ['RUB', 'USD', 'EUR', 'KZT', 'BYN'] as const;
export type SettlementCurrency = (typeof SETTLEMENT_CURRENCIES)[number];

/** The currency a shop entry settles in when it names none. */
export const DEFAULT_SHOP_CURRENCY: SettlementCurrency = 'RUB';

/** A merchant shop of one sales channel: its credentials, whether it is a test shop, the currency it settles in. */
export interface Shop {
  id: string;
  secretKey: string;
  test: boolean;
  currency: SettlementCurrency;
}

/** Sales channels that buy with a card: each has its own merchant shop (and test flag). */
export const CARD_CHANNELS = ['direct', 'vk'] as const;
export type CardChannel = (typeof CARD_CHANNELS)[number];

/** The card provider's shop of each channel that has one. */
export type ShopTable = Partial<Record<CardChannel, Shop>>;

const ENTRY = /^(direct|vk):([^:\s]+):([^:\s]+):(test|live)(?::([^:\s]*))?$/;

function isSettlementCurrency(value: string): value is SettlementCurrency {
  return (SETTLEMENT_CURRENCIES as readonly string[]).includes(value);
}

/**
 * Parses `channel:shopId:secretKey:test|live[:currency]` entries, comma-separated (e.g.
 * `direct:123:test_abc:test,vk:456:live_def:live:RUB`); the currency is one of
 * SETTLEMENT_CURRENCIES, default RUB. Each channel at most once; one shop may serve several
 * channels. Messages never quote an entry (it holds a secret key).
 */
export function parseShops(value: string): ShopTable {
  const table: ShopTable = {};
  for (const raw of value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')) {
    const m = ENTRY.exec(raw);
    if (!m) throw new Error('each entry must be channel:shopId:secretKey:test|live[:currency] with channel direct or vk');
    const channel = m[1] as CardChannel;
    if (table[channel]) throw new Error(`channel ${channel} is listed twice`);
    const currency = m[5] ?? DEFAULT_SHOP_CURRENCY;
    if (!isSettlementCurrency(currency)) {
      throw new Error(`the currency of channel ${channel} must be one of ${SETTLEMENT_CURRENCIES.join(', ')}`);
    }
    table[channel] = { id: m[2] as string, secretKey: m[3] as string, test: m[4] === 'test', currency };
  }
  if (Object.keys(table).length === 0) throw new Error('must list at least one shop');
  return table;
}

/** The zod field for a shops variable: a bad value names the variable through ConfigError. */
export function shopsField() {
  return z.string().transform((value, ctx) => {
    try {
      return parseShops(value);
    } catch (err: unknown) {
      ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : 'malformed' });
      return z.NEVER;
    }
  });
}

/**
 * The currencies a card price may be in: those every configured shop settles (a product has one
 * card price, offered on every card channel); with no card shop, the default shop currency. Empty
 * when the shops settle different currencies: then no card price fits them all.
 */
export function cardPriceCurrencies(shops: ShopTable | null | undefined): SettlementCurrency[] {
  const listed = Object.values(shops ?? {});
  if (listed.length === 0) return [DEFAULT_SHOP_CURRENCY];
  return SETTLEMENT_CURRENCIES.filter((c) => listed.every((shop) => shop.currency === c));
}
