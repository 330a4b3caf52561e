import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { LANGUAGES, type Language } from '@wordgame/i18n';
import { z } from 'zod';
import type { BackendClients } from '../../backend/index.js';
import { ApiError } from '../../http/index.js';
import type { Operation, OperationContext } from '../operation.js';
import { isoFromUnix } from '../fbs-read.js';
import { ATOM_KINDS, PRICE_METHODS, readAtoms, readPrices, writeAtoms, writePrices } from '../products.js';
import { amountParam, byField, idParam, jsonBody, parseInput, text } from '../validation.js';
import { LIMIT_PERIODS, productListWire, productWire, purchaseLimitWire, type ProductJson } from './wire.js';

/** Characters a product title must not contain: they break a platform's payment-callback signature check. */
const TITLE_FORBIDDEN = /[&<>"']/;

const LANGUAGE_NAMES: Readonly<Record<Language, string>> = { en: 'English-speaking', ru: 'Russian-speaking' };

/** An offer window edge: ISO 8601 with a zone, whole seconds; null or left out: open on that side. */
const windowEdge = z.iso
  .datetime({ offset: true })
  .refine((s) => Date.parse(s) % 1000 === 0, 'must be whole seconds')
  .nullable()
  .default(null);

const draftText = z.object({ title: text(64).min(1, 'must not be empty'), description: text(255).default('') }).strict();

const draftBody = z
  .object({
    /** The English title; may be left out when `texts.en` is given (then equal to it when both are). */
    title: text(64).min(1, 'must not be empty').optional(),
    /** The words per language: a product shows a Russian player Russian words only when `ru` is here. */
    texts: z.object({ en: draftText.optional(), ru: draftText.optional() }).strict().optional(),
    active: z.boolean().default(true),
    atoms: z
      .array(z.object({ kind: z.enum(ATOM_KINDS), quantity: amountParam.refine((q) => q > 0n, 'must be positive') }).strict())
      .min(1, 'a product needs at least one atom')
      .max(10)
      .refine((a) => new Set(a.map((x) => x.kind)).size === a.length, 'atom kinds must be distinct'),
    prices: z
      .array(
        z
          .object({
            method: z.enum(PRICE_METHODS),
            amount: amountParam,
            currency: z.string().regex(/^[A-Z]{3,5}$/, 'must be 3-5 capital letters'),
          })
          .strict(),
      )
      .min(1, 'a product needs at least one price')
      .max(5)
      .refine((p) => new Set(p.map((x) => x.method)).size === p.length, 'price methods must be distinct'),
    /** 2592000 (30 days, Telegram's only period) makes a stars subscription: one xtr price only. */
    subscription_period_seconds: z
      .union([z.literal(0), z.literal(2_592_000)])
      .nullable()
      .default(null),
    available_from: windowEdge,
    available_until: windowEdge,
    purchase_limit: purchaseLimitWire.nullable().default(null),
  })
  .strict()
  .refine((d) => d.title !== undefined || d.texts?.en !== undefined, { message: 'an English title is needed', path: ['title'] });

const listQuery = z.object({ include_inactive: z.enum(['true', 'false']).default('true') });
const productPath = z.object({ id: idParam });

const draftExamples = {
  weekend_offer: {
    texts: {
      en: { title: 'Weekend hints', description: 'Ten hints, this weekend only, twice per player.' },
      ru: { title: 'Подсказки выходного дня', description: 'Десять подсказок, только в эти выходные, дважды на игрока.' },
    },
    atoms: [{ kind: 'hints', quantity: '10' }],
    prices: [{ method: 'xtr', amount: '25', currency: 'XTR' }],
    available_from: '2026-12-05T00:00:00Z',
    available_until: '2026-12-07T00:00:00Z',
    purchase_limit: { count: 2, period: 'ever' },
  },
  monthly_pass: {
    texts: {
      en: { title: 'Monthly pass', description: 'No ads for 30 days, renewed by Telegram.' },
      ru: { title: 'Месячный пропуск', description: '30 дней без рекламы, продлевается в Telegram.' },
    },
    atoms: [{ kind: 'no_ads_days', quantity: '30' }],
    prices: [{ method: 'xtr', amount: '100', currency: 'XTR' }],
    subscription_period_seconds: 2592000,
  },
  chips: {
    texts: {
      en: { title: 'Handful of chips', description: '100 chips to spend on hints and ad-free days.' },
      ru: { title: 'Горсть фишек', description: '100 фишек на подсказки и дни без рекламы.' },
    },
    active: true,
    atoms: [{ kind: 'chips', quantity: '100' }],
    prices: [
      { method: 'provider', amount: '9900', currency: 'RUB' },
      { method: 'xtr', amount: '50', currency: 'XTR' },
    ],
  },
  hints: {
    texts: {
      en: { title: 'Hints x5', description: 'For the words that will not come.' },
      ru: { title: 'Подсказки x5', description: 'Для слов, которые не идут.' },
    },
    atoms: [{ kind: 'hints', quantity: '5' }],
    prices: [{ method: 'chips', amount: '30', currency: 'CHIPS' }],
  },
};
const draftErrors = ['invalid_title', 'invalid_atoms', 'invalid_prices', 'invalid_currency', 'invalid_offer'] as const;

const unixOf = (iso: string | null): bigint => (iso === null ? 0n : BigInt(Date.parse(iso) / 1000));

function limitOf(t: InstanceType<typeof fb.ProductRecord>): ProductJson['purchase_limit'] {
  const period = LIMIT_PERIODS.find((p) => p === t.purchaseLimitPeriod());
  return t.purchaseLimit() > 0 && period !== undefined ? { count: t.purchaseLimit(), period } : null;
}

function productOf(t: InstanceType<typeof fb.ProductRecord>): ProductJson {
  const title = t.title() ?? '';
  const texts: ProductJson['texts'] = { en: { title, description: '' } };
  for (let i = 0; i < t.textsLength(); i++) {
    const x = t.texts(i);
    const locale = x?.locale();
    if (x && (locale === 'en' || locale === 'ru')) texts[locale] = { title: x.title() ?? '', description: x.description() ?? '' };
  }
  return {
    product_id: t.productId(),
    title,
    active: t.active(),
    atoms: readAtoms(t),
    prices: readPrices(t),
    updated_at: isoFromUnix(t.updatedAtUnix()),
    texts,
    subscription_period_seconds: t.subscriptionPeriod() === 0 ? null : t.subscriptionPeriod(),
    available_from: isoFromUnix(t.availableFromUnix()),
    available_until: isoFromUnix(t.availableUntilUnix()),
    purchase_limit: limitOf(t),
  };
}

async function list(backend: BackendClients, includeInactive: boolean, call: OperationContext['call']): Promise<ProductJson[]> {
  const { body } = await backend.catalogAdmin.listProducts(
    { body: encodeTable((b) => fb.ProductListQuery.createProductListQuery(b, includeInactive)) },
    call,
  );
  return decodeTable(
    body,
    (bb) => fb.ProductList.getRootAsProductList(bb),
    (t) => {
      const out: ProductJson[] = [];
      for (let i = 0; i < t.productsLength(); i++) {
        const p = t.products(i);
        if (p) out.push(productOf(p));
      }
      return out;
    },
  );
}

async function upsert(backend: BackendClients, productId: bigint, { req, call }: OperationContext): Promise<ProductJson> {
  const draft = parseInput(
    draftBody,
    jsonBody(req),
    byField({
      title: 'invalid_title',
      texts: 'invalid_title',
      atoms: 'invalid_atoms',
      prices: 'invalid_prices',
      subscription_period_seconds: 'invalid_offer',
      available_from: 'invalid_offer',
      available_until: 'invalid_offer',
      purchase_limit: 'invalid_offer',
    }),
  );
  const texts = Object.entries(draft.texts ?? {}).flatMap(([locale, t]) => (t ? [{ locale, ...t }] : []));
  // As the console's form does: a new product, or new words for one, has a title in every language.
  if (productId === 0n || draft.texts !== undefined) {
    const missing = LANGUAGES.find((l) => !(draft.texts?.[l] !== undefined || (l === 'en' && draft.title !== undefined)));
    if (missing !== undefined)
      throw new ApiError(
        'invalid_title',
        `texts.${missing}.title: missing; a product needs a title in every language (${LANGUAGES.join(', ')}), else ${LANGUAGE_NAMES[missing]} players read another language`,
      );
  }
  if ([draft.title ?? '', ...texts.map((t) => t.title)].some((t) => TITLE_FORBIDDEN.test(t))) throw new ApiError('invalid_title');
  const body = encodeTable((b) => {
    const title = b.createString(draft.title ?? '');
    const atoms = writeAtoms(b, draft.atoms);
    const prices = writePrices(b, draft.prices);
    const textOffsets = texts.map((t) =>
      fb.ProductText.createProductText(b, b.createString(t.locale), b.createString(t.title), b.createString(t.description)),
    );
    return fb.ProductDraft.createProductDraft(
      b,
      productId,
      title,
      draft.active,
      atoms,
      prices,
      fb.ProductDraft.createTextsVector(b, textOffsets),
      draft.subscription_period_seconds ?? 0,
      unixOf(draft.available_from),
      unixOf(draft.available_until),
      draft.purchase_limit?.count ?? 0,
      draft.purchase_limit ? b.createString(draft.purchase_limit.period) : 0,
    );
  });
  const res = await backend.catalogAdmin.upsertProduct({ body }, call);
  return decodeTable(res.body, (bb) => fb.ProductRecord.getRootAsProductRecord(bb), productOf);
}

/** The operator-only catalog editor API (an operator session with catalog_editor, checked and audited by the backend). */
export function catalogAdminOperations(backend: BackendClients): Operation[] {
  return [
    {
      name: 'catalog_admin.list',
      method: 'get',
      path: '/_gm/api/catalog/products',
      auth: 'operator',
      doc: {
        tag: 'operator',
        summary: 'Every catalog product (catalog_editor role)',
        query: listQuery,
        success: { status: 200, description: 'The products.', body: productListWire },
        errors: [],
      },
      async handle({ req, call }) {
        const query = parseInput(listQuery, req.query);
        return { status: 200, body: { products: await list(backend, query.include_inactive === 'true', call) } };
      },
    },
    {
      name: 'catalog_admin.get',
      method: 'get',
      path: '/_gm/api/catalog/products/:id',
      auth: 'operator',
      doc: {
        tag: 'operator',
        summary: 'One catalog product (catalog_editor role)',
        params: productPath,
        success: { status: 200, description: 'The product.', body: productWire },
        errors: ['unknown_product'],
      },
      async handle({ req, call }) {
        const { id } = parseInput(productPath, req.params);
        const product = (await list(backend, true, call)).find((p) => p.product_id === id);
        if (!product) throw new ApiError('unknown_product');
        return { status: 200, body: product };
      },
    },
    {
      name: 'catalog_admin.create',
      method: 'post',
      path: '/_gm/api/catalog/products',
      auth: 'operator',
      doc: {
        tag: 'operator',
        summary: 'Create a catalog product (catalog_editor role)',
        description:
          "Every title (`title`, `texts.en.title`, `texts.ru.title`) must not contain any of & < > \" ' (they break a platform's payment-callback signature). A description must not repeat its title. A new product needs a title in every language (`title` or `texts.en`, and `texts.ru`; the refusal names the missing one): `texts.ru` is what a Russian player reads. On an update, a body without `texts` sets the English title only and keeps the other languages' words; a body with `texts` replaces them and needs every language too. `subscription_period_seconds` 2592000 makes a monthly stars subscription (one xtr price only); `available_from`/`available_until` bound a time-limited offer (outside it the shop hides the product and orders are refused); `purchase_limit` caps each player's purchases per UTC day, ISO week, month or ever. Left out, each is null (one-time, always on offer, no limit); an update replaces them like the rest (`invalid_offer` names a bad one).",
        body: draftBody,
        examples: draftExamples,
        success: { status: 201, description: 'The product created.', body: productWire },
        errors: draftErrors,
      },
      async handle(ctx) {
        return { status: 201, body: await upsert(backend, 0n, ctx) };
      },
    },
    {
      name: 'catalog_admin.update',
      method: 'put',
      path: '/_gm/api/catalog/products/:id',
      auth: 'operator',
      doc: {
        tag: 'operator',
        summary: 'Replace a catalog product (catalog_editor role)',
        params: productPath,
        body: draftBody,
        examples: draftExamples,
        success: { status: 200, description: 'The product as stored.', body: productWire },
        errors: [...draftErrors, 'unknown_product'],
      },
      async handle(ctx) {
        const { id } = parseInput(productPath, ctx.req.params);
        return { status: 200, body: await upsert(backend, id, ctx) };
      },
    },
  ];
}
