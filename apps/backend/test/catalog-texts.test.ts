import type { Client } from '@connectrpc/connect';
import { backendApi, connector, decodeTable, encodeTable, fb, type botlink } from '@wordgame/contracts';
import { upsertProduct } from '../src/catalog/catalog.store.js';
import { DEV_CATALOG } from '../src/catalog/seed.js';
import { validateDraft, type RawDraft } from '../src/catalog/validate.js';
import {
  createOrder,
  deliverInvoices,
  eventually,
  forward,
  startBotCommandServer,
  telegramAccount,
  type BotCommandServer,
} from './payments-support.js';
import { as, errorOf, failure, startHarness, type Harness } from './support/harness.js';
import { createProduct, draftBody } from './support/wallet.js';

/**
 * One language per screen (issue #30 item 5): a product has a title and a description per language;
 * the wallet catalog, the stars invoice and the bot's payment notice carry the player's language,
 * and English is the fallback for a product that has no words in it.
 */
/** A draft's offer fields left at their defaults: one-time, always on offer, no limit. */
const OPEN_OFFER = { subscriptionPeriod: 0, availableFromUnix: 0n, availableUntilUnix: 0n, purchaseLimit: 0, purchaseLimitPeriod: null };

describe('product texts per language', () => {
  let bot: BotCommandServer;
  let h: Harness;
  let admin: Client<typeof backendApi.CatalogAdminService>;
  let wallet: Client<typeof backendApi.WalletService>;
  let payments: Client<typeof backendApi.PaymentsService>;
  let pack: bigint;
  let englishOnly: bigint;

  beforeAll(async () => {
    bot = await startBotCommandServer();
    h = await startHarness({ GATEWAY_INTERNAL_URL: bot.url, REAPER_INTERVAL_MS: '0' });
    admin = h.client(backendApi.CatalogAdminService);
    wallet = h.client(backendApi.WalletService);
    payments = h.client(backendApi.PaymentsService);
    pack = await createProduct(admin, {
      title: 'Bag of chips',
      atoms: [['chips', 500n]],
      prices: [['xtr', 200n]],
      texts: [
        ['en', 'Bag of chips', 'The better deal for regular players.'],
        ['ru', 'Мешок фишек', 'Выгоднее для тех, кто играет часто.'],
      ],
    });
    // A product from before every language was required: English words only, stored as they were.
    englishOnly = (
      await upsertProduct(
        h.database.db,
        {
          id: 0n,
          title: 'Old pack',
          active: true,
          atoms: [{ kind: 'chips', quantity: 20n }],
          prices: [{ method: 'xtr', amount: 10n, currency: 'XTR' }],
        },
        new Date(),
      )
    ).id;
  });
  afterAll(async () => {
    await h.stop();
    await bot.stop();
  });
  beforeEach(() => {
    bot.respond = deliverInvoices;
  });

  const catalogIn = async (accountId: bigint, locale: string) =>
    decodeTable(
      (
        await wallet.getCatalog(
          { body: encodeTable((b) => fb.WalletCatalogQuery.createWalletCatalogQuery(b, b.createString(locale))) },
          as(accountId, 'telegram'),
        )
      ).body,
      (bb) => fb.WalletCatalog.getRootAsWalletCatalog(bb),
      (t) =>
        Object.fromEntries(
          Array.from({ length: t.productsLength() }, (_, i) => {
            const p = t.products(i);
            return [String(p?.productId()), { title: p?.title(), description: p?.description() }];
          }),
        ),
    );

  it('the wallet catalog is worded in the asked language, English for a product without it and for an unknown language', async () => {
    const id = await telegramAccount(h.database.db, '51001');
    const ru = await catalogIn(id, 'ru');
    expect(ru[String(pack)]).toEqual({ title: 'Мешок фишек', description: 'Выгоднее для тех, кто играет часто.' });
    expect(ru[String(englishOnly)]).toEqual({ title: 'Old pack', description: '' });
    expect((await catalogIn(id, 'en'))[String(pack)]).toEqual({
      title: 'Bag of chips',
      description: 'The better deal for regular players.',
    });
    expect((await catalogIn(id, 'de'))[String(pack)]?.title).toBe('Bag of chips');
  });

  it('the stars invoice is in the payer language; without a description the grants are worded in that language', async () => {
    const id = await telegramAccount(h.database.db, '51002');
    const invoice = () => {
      const sent = bot.commands.at(-1);
      if (sent?.payload.case !== 'createInvoice') throw new Error('no create_invoice sent');
      return { title: sent.payload.value.title, description: sent.payload.value.description };
    };
    await createOrder(payments, id, 'telegram', pack, 'stars', 'ru');
    expect(invoice()).toEqual({ title: 'Мешок фишек', description: 'Выгоднее для тех, кто играет часто.' });
    await createOrder(payments, id, 'telegram', pack, 'stars', 'en');
    expect(invoice()).toEqual({ title: 'Bag of chips', description: 'The better deal for regular players.' });
    await createOrder(payments, id, 'telegram', englishOnly, 'stars', 'ru');
    expect(invoice()).toEqual({ title: 'Old pack', description: '20 chips' });
  });

  it('the payment notice carries the title in every language the product has, for the bot to pick the user one', async () => {
    const id = await telegramAccount(h.database.db, '51003');
    const order = await createOrder(payments, id, 'telegram', pack, 'stars', 'ru');
    expect(await forward(h.client(backendApi.BotIntakeService), order.orderId, 'texts-charge-1', 200n, 51003n)).toBe(true);
    const notices = () =>
      bot.commands.filter(
        (c): c is botlink.Command & { payload: { case: 'notify' } } =>
          c.payload.case === 'notify' && c.payload.value.kind === connector.NotificationKind.PAYMENT_CREDITED,
      );
    await eventually(() => notices().length > 0);
    expect(notices()[0]?.payload.value.params).toEqual({
      order_id: order.orderId,
      product_title: 'Bag of chips',
      product_title_en: 'Bag of chips',
      product_title_ru: 'Мешок фишек',
      chips: '500',
    });
  });

  it("a draft with an English title only (a client from before texts) keeps the other languages' words; one with texts replaces them", async () => {
    const id = await createProduct(admin, {
      title: 'Pouch',
      atoms: [['chips', 5n]],
      prices: [['xtr', 3n]],
      texts: [
        ['en', 'Pouch', 'A few chips to try.'],
        ['ru', 'Кошелёчек', 'Немного фишек на пробу.'],
      ],
    });
    const texts = () =>
      h.database.db
        .selectFrom('catalog_product_texts')
        .select(['locale', 'title', 'description'])
        .where('product_id', '=', id)
        .orderBy('locale')
        .execute();
    await admin.upsertProduct({ body: draftBody({ id, title: 'Small pouch', atoms: [['chips', 5n]], prices: [['xtr', 3n]], texts: [] }) });
    expect(await texts()).toEqual([
      { locale: 'en', title: 'Small pouch', description: 'A few chips to try.' },
      { locale: 'ru', title: 'Кошелёчек', description: 'Немного фишек на пробу.' },
    ]);
    await admin.upsertProduct({
      body: draftBody({
        id,
        title: 'Pouch',
        atoms: [['chips', 5n]],
        prices: [['xtr', 3n]],
        texts: [
          ['en', 'Pouch', ''],
          ['ru', 'Мешочек', ''],
        ],
      }),
    });
    expect(await texts()).toEqual([
      { locale: 'en', title: 'Pouch', description: '' },
      { locale: 'ru', title: 'Мешочек', description: '' },
    ]);
  });

  it('a new product, or new words for one, needs a title in every language: the refusal names the missing one and writes nothing', async () => {
    const count = async () =>
      Number(
        (
          await h.database.db
            .selectFrom('catalog_products')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const create = (texts: Array<[string, string, string]>) =>
      admin.upsertProduct({ body: draftBody({ title: 'Pack', atoms: [['chips', 1n]], prices: [['xtr', 1n]], texts }) });
    for (const texts of [[], [['en', 'Pack', '']]] as Array<Array<[string, string, string]>>) {
      const err = await create(texts).catch((e: unknown) => e);
      expect(errorOf(err)).toEqual({ code: 3, errorCode: 'invalid_title' });
      expect(String((err as Error).message)).toMatch(/ru title: missing; a product needs a title in every language \(ru, en\)/);
    }
    expect(await count()).toBe(before);
    const id = await createProduct(admin, {
      title: 'Pack',
      atoms: [['chips', 1n]],
      prices: [['xtr', 1n]],
      texts: [
        ['en', 'Pack', ''],
        ['ru', 'Пачка', ''],
      ],
    });
    expect(
      await failure(
        admin.upsertProduct({
          body: draftBody({ id, title: 'Pack', atoms: [['chips', 1n]], prices: [['xtr', 1n]], texts: [['en', 'Pack', '']] }),
        }),
      ),
    ).toEqual({ code: 3, errorCode: 'invalid_title' });
  });

  it('the title rule applies to each language, and a description may not repeat its title', async () => {
    const draft = (texts: Array<[string, string, string]>) =>
      failure(admin.upsertProduct({ body: draftBody({ title: 'Pack', atoms: [['chips', 1n]], prices: [['xtr', 1n]], texts }) }));
    expect(await draft([['ru', 'Том & Джерри', '']])).toEqual({ code: 3, errorCode: 'invalid_title' });
    expect(await draft([['ru', 'Пачка', 'пачка']])).toEqual({ code: 3, errorCode: 'invalid_title' });
    expect(await draft([['en', 'Pack', 'Pack']])).toEqual({ code: 3, errorCode: 'invalid_title' });
    expect(await draft([['de', 'Packung', '']])).toEqual({ code: 3, errorCode: 'invalid_title' });
    expect(await draft([['en', 'Other pack', '']])).toEqual({ code: 3, errorCode: 'invalid_title' });
    const raw: RawDraft = {
      id: 0n,
      title: null,
      active: true,
      atoms: [{ kind: 'chips', quantity: 1n }],
      prices: [{ method: 'xtr', amount: 1n, currency: 'XTR' }],
      texts: [{ locale: 'ru', title: 'Пачка\u202e', description: null }],
      ...OPEN_OFFER,
    };
    expect(() => validateDraft(raw, ['RUB'])).toThrow(/^ru title: /);
  });

  it('the dev catalog has English and Russian words for every product, and no description repeats its title', () => {
    for (const product of DEV_CATALOG) {
      expect(product.texts?.map((t) => t.locale).sort()).toEqual(['en', 'ru']);
      const raw: RawDraft = {
        ...product,
        prices: product.prices.map((p) => ({ ...p })),
        atoms: product.atoms.map((a) => ({ ...a })),
        texts: (product.texts ?? []).map((t) => ({ ...t })),
        ...OPEN_OFFER,
      };
      expect(validateDraft(raw, ['RUB']).texts).toEqual(product.texts);
      for (const t of product.texts ?? []) expect(t.description.toLowerCase()).not.toContain(t.title.toLowerCase());
    }
  });
});
