import type { Kysely } from 'kysely';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../db/index.js';
import type { Mailer } from '../mail/index.js';
import type { PaymentMetrics } from '../metrics/index.js';
import type { BotCommands } from '../botcommands/index.js';
import type { PaymentProvider, Shop } from './card/provider/types.js';
import type { RereadWindow } from './card/reread-window.js';
import type { ShopTable } from '../config/index.js';
import type { CatalogReader } from '../catalog/index.js';

/** The card rail: one provider adapter, its shop per channel, receipts and the return URL. */
export interface CardRail {
  provider: PaymentProvider;
  shops: ShopTable;
  /** vat_code for itemised receipts; null = no receipts are built or sent. */
  vatCode: number | null;
  /** Where the provider sends the customer after paying. */
  returnUrl: string;
}

/** The stars rail's settings. */
export interface StarsRail {
  /** How long an approved pre-checkout reserves its order (the platform's answer window). */
  holdMs: number;
}

/** Everything the payment domain works with; `now` is injectable so tests control time. */
export interface PaymentDeps {
  db: Kysely<DB>;
  logger: Logger;
  /**
   * The catalog as orders, credits and notices read it: the backend's in-memory catalog (one per
   * process, invalidated by the catalog tables' notifications), or straight from the database.
   */
  catalog: CatalogReader;
  bot: BotCommands;
  /** Customer mail (a failed card payment is told by e-mail too). */
  mailer: Mailer;
  /** null when no card shop is configured (the card rail answers rail_not_configured). */
  card: CardRail | null;
  stars: StarsRail;
  /** Credits, refunds, unmatched payments, reaper ticks and notices, as metrics. */
  metrics: PaymentMetrics;
  /**
   * How long a claimed console refund or reconciliation action is left to the press that claimed
   * it: longer than its outside calls can take (two provider calls and a bot command, each bounded
   * by its timeout), so a live claim outlasts its calls and the claim of a claimer that died lapses.
   */
  claimLeaseMs: number;
  /** At most one provider re-read per notified payment or refund per PROVIDER_REREAD_WINDOW_MS, across replicas. */
  rereads: RereadWindow;
  now(): Date;
}

/** The card shop an order was placed with; undefined when configuration no longer has it. */
export function shopOf(card: CardRail, shopId: string | null): Shop | undefined {
  if (shopId === null) return undefined;
  return Object.values(card.shops).find((s) => s.id === shopId);
}
