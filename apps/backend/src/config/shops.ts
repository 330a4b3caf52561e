import { z } from 'zod';

/** A merchant shop of one sales channel: its credentials and whether it is a test shop. */
export interface Shop {
  id: string;
  secretKey: string;
  test: boolean;
}

/** Sales channels that buy with a card: each has its own merchant shop (and test flag). */
export const CARD_CHANNELS = ['direct', 'vk'] as const;
export type CardChannel = (typeof CARD_CHANNELS)[number];

/** The card provider's shop of each channel that has one. */
export type ShopTable = Partial<Record<CardChannel, Shop>>;

const ENTRY = /^(direct|vk):([^:\s]+):([^:\s]+):(test|live)$/;

/**
 * Parses `channel:shopId:secretKey:test|live` entries, comma-separated (e.g.
 * `direct:123:test_abc:test,vk:456:live_def:live`). Each channel at most once; one shop may serve
 * several channels.
 */
export function parseShops(value: string): ShopTable {
  const table: ShopTable = {};
  for (const raw of value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')) {
    const m = ENTRY.exec(raw);
    if (!m) throw new Error('each entry must be channel:shopId:secretKey:test|live with channel direct or vk');
    const channel = m[1] as CardChannel;
    if (table[channel]) throw new Error(`channel ${channel} is listed twice`);
    table[channel] = { id: m[2] as string, secretKey: m[3] as string, test: m[4] === 'test' };
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
