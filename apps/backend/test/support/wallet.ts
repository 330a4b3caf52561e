import type { Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import type { Kysely } from 'kysely';
import { insertAccount } from '../../src/accounts/accounts.store.js';
import { openWallet } from '../../src/ledger/index.js';
import type { DB } from '../../src/db/schema.js';

/** A product draft as the editor sends it. */
export interface DraftSpec {
  id?: bigint;
  title: string;
  active?: boolean;
  atoms: Array<[kind: string, quantity: bigint]>;
  prices: Array<[method: string, amount: bigint, currency?: string]>;
  /** Words per language: [locale, title, description]; left out, the title in every language; `[]` sends none (a client from before texts). */
  texts?: Array<[locale: string, title: string, description: string]>;
  subscriptionPeriod?: number;
  /** The offer window in unix seconds (0 or left out: open). */
  availableFrom?: bigint;
  availableUntil?: bigint;
  purchaseLimit?: [count: number, period: string];
}

export function draftBody(d: DraftSpec): Uint8Array {
  return encodeTable((b) => {
    const title = b.createString(d.title);
    const atoms = d.atoms.map(([kind, q]) => fb.ProductAtom.createProductAtom(b, b.createString(kind), q));
    const prices = d.prices.map(([m, amount, cur]) => {
      const method = b.createString(m);
      const currency = cur === undefined ? 0 : b.createString(cur);
      return fb.ProductPrice.createProductPrice(b, method, amount, currency);
    });
    const words = d.texts ?? [
      ['en', d.title, ''],
      ['ru', d.title, ''],
    ];
    const texts = words.map(([locale, t, description]) =>
      fb.ProductText.createProductText(b, b.createString(locale), b.createString(t), b.createString(description)),
    );
    return fb.ProductDraft.createProductDraft(
      b,
      d.id ?? 0n,
      title,
      d.active ?? true,
      fb.ProductDraft.createAtomsVector(b, atoms),
      fb.ProductDraft.createPricesVector(b, prices),
      fb.ProductDraft.createTextsVector(b, texts),
      d.subscriptionPeriod ?? 0,
      d.availableFrom ?? 0n,
      d.availableUntil ?? 0n,
      d.purchaseLimit?.[0] ?? 0,
      d.purchaseLimit ? b.createString(d.purchaseLimit[1]) : 0,
    );
  });
}

export function readRecord(t: InstanceType<typeof fb.ProductRecord>) {
  return {
    id: t.productId(),
    title: t.title(),
    active: t.active(),
    atoms: Array.from({ length: t.atomsLength() }, (_, i) => [t.atoms(i)?.kind(), t.atoms(i)?.quantity()]),
    prices: Array.from({ length: t.pricesLength() }, (_, i) => [t.prices(i)?.method(), t.prices(i)?.amount(), t.prices(i)?.currency()]),
  };
}

/** Creates a product through CatalogAdminService and returns its id. */
export async function createProduct(admin: Client<typeof backendApi.CatalogAdminService>, d: DraftSpec): Promise<bigint> {
  const res = await admin.upsertProduct({ body: draftBody(d) });
  return decodeTable(
    res.body,
    (bb) => fb.ProductRecord.getRootAsProductRecord(bb),
    (t) => t.productId(),
  );
}

/** A bare account with its three empty segments. */
export function newAccount(db: Kysely<DB>, email?: { address: string; confirmed: boolean }): Promise<bigint> {
  return db.transaction().execute(async (trx) => {
    const id = await insertAccount(trx, { displayName: 'tester', ...(email ? { email: email.address } : {}) });
    await openWallet(trx, id);
    if (email?.confirmed) await trx.updateTable('accounts').set({ email_confirmed_at: new Date() }).where('id', '=', id).execute();
    return id;
  });
}

export function readWallet(t: InstanceType<typeof fb.WalletView>) {
  return {
    segments: Object.fromEntries(
      Array.from({ length: t.segmentsLength() }, (_, i): [string, bigint] => [
        String(t.segments(i)?.segment()),
        t.segments(i)?.balance() ?? -1n,
      ]),
    ),
    benefits: Array.from({ length: t.benefitsLength() }, (_, i) => {
      const x = t.benefits(i);
      return { origin: x?.origin(), until: x?.noAdsUntilUnix(), forever: x?.noAdsForever(), hints: x?.hints() };
    }),
    spendOrder: Array.from({ length: t.spendOrderLength() }, (_, i) => t.spendOrder(i)),
    canSpend: t.canSpend(),
    frozen: t.frozen(),
    trusted: t.trusted(),
  };
}

export function readPurchase(body: Uint8Array) {
  return decodeTable(
    body,
    (bb) => fb.WalletPurchase.getRootAsWalletPurchase(bb),
    (t) => {
      const wallet = t.wallet();
      return {
        productId: t.productId(),
        price: t.price(),
        draws: Array.from({ length: t.drawsLength() }, (_, i) => [t.draws(i)?.segment(), t.draws(i)?.amount()]),
        benefitOrigin: t.benefitOrigin(),
        wallet: wallet ? readWallet(wallet) : null,
        replayed: t.replayed(),
      };
    },
  );
}

export function buyBody(productId: bigint, key = ''): Uint8Array {
  return encodeTable((b) => fb.WalletBuy.createWalletBuy(b, productId, b.createString(key)));
}
