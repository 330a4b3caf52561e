import type { Kysely } from 'kysely';
import type { DB } from '../db/index.js';
import { onOffer, textOf, type CatalogReader, type Product, type ProductPriceView } from '../catalog/index.js';
import type { Language } from '@wordgame/i18n';
import { type PaymentMethod, gate, type GateDecision } from '../gate/index.js';
import { type Caller, DomainError } from '../rpc/index.js';
import { catalogAccount } from './wallet.store.js';

/** The catalog as one context may see it (wallet.catalog). */
export interface CatalogViewData {
  /** Title and description in the caller's language (English for a product without that text). */
  products: Array<
    Pick<Product, 'id' | 'title' | 'atoms' | 'availableUntil' | 'subscriptionPeriodSeconds'> & {
      description: string;
      prices: ProductPriceView[];
    }
  >;
  purchaseMethods: PaymentMethod[];
  emailRequired: boolean;
  notice: string;
  frozen: boolean;
  trusted: boolean;
  /** The server's clock when it answered: the client counts an offer's time left from it, not from its own clock. */
  now: Date;
}

/** Methods a context may pay with: chips when it may spend, plus its money methods. */
export function usableMethods(decision: GateDecision): PaymentMethod[] {
  return [...(decision.canSpend ? (['chips'] as const) : []), ...decision.canPurchaseMethods];
}

function noticeFor(decision: GateDecision & { emailRequired: boolean }): string {
  if (!decision.trusted) return 'Sign in again from the app to buy or spend chips.';
  if (decision.frozen) return 'Purchases are not available in this app on this device.';
  if (decision.emailRequired) return 'Add and confirm an e-mail address in your profile to buy chips with a card.';
  return '';
}

/**
 * Keeps only the prices a context may use and drops products left without one, and the offers
 * whose window does not hold `now` (catalog onOffer: the shop shows what order creation would
 * accept); each product's title and description are in `language` (catalog textOf). A monthly pass
 * (a stars subscription) keeps only its stars price: it is sold on the stars rail alone, so outside
 * Telegram it is not listed.
 */
export function projectCatalog(
  products: readonly Product[],
  decision: GateDecision & { emailRequired: boolean },
  now: Date,
  language: Language = 'en',
): CatalogViewData {
  const methods = usableMethods(decision);
  return {
    products: products
      .filter((p) => onOffer(p, now))
      .map((p) => {
        const text = textOf(p, language);
        return {
          id: p.id,
          title: text.title,
          description: text.description,
          atoms: p.atoms,
          availableUntil: p.availableUntil,
          subscriptionPeriodSeconds: p.subscriptionPeriodSeconds,
          prices: p.prices.filter((x) => methods.includes(x.method) && (p.subscriptionPeriodSeconds === null || x.method === 'xtr')),
        };
      })
      .filter((p) => p.prices.length > 0),
    purchaseMethods: methods,
    emailRequired: decision.emailRequired,
    notice: noticeFor(decision),
    frozen: decision.frozen,
    trusted: decision.trusted,
    now,
  };
}

/**
 * wallet.catalog for a caller at `now`: active products on offer, projected through the gate, worded
 * in `language`. The products come from `catalog` (the backend's in-memory catalog: the page is
 * read on every wallet open), the account from `db`.
 */
export async function catalogFor(
  db: Kysely<DB>,
  catalog: CatalogReader,
  caller: Caller,
  now: Date,
  language: Language = 'en',
): Promise<CatalogViewData> {
  const account = await catalogAccount(db, caller.accountId);
  if (!account || account.status === 'deleted') throw new DomainError('caller_required', 'the caller account does not exist');
  const decision = gate({ ...caller.platform, emailConfirmed: account.email_confirmed_at !== null });
  return projectCatalog(await catalog.products({ includeInactive: false }), decision, now, language);
}
