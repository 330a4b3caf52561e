import type { Request, Response } from 'express';
import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { asOperator, failureOf, type ConsoleClient } from '../backend.js';
import { html } from '../../http/index.js';
import { csrfField, page, send, sendError } from '../layout.js';
import { formatAmount } from '../money.js';
import { paramId, type ConsoleOperator } from '../session.js';

/** A product as the editor form holds it (strings as typed); `title` is the English title. */
interface Draft {
  id: string;
  title: string;
  description: string;
  titleRu: string;
  descriptionRu: string;
  active: boolean;
  chips: string;
  noAdsDays: string;
  noAdsForever: boolean;
  hints: string;
  priceChips: string;
  priceProvider: string;
  providerCurrency: string;
  priceXtr: string;
  /** A monthly stars subscription (30 days, Telegram's only period). */
  subscription: boolean;
  /** The offer window's edges as `YYYY-MM-DDTHH:MM` in UTC (a datetime-local value); empty = open. */
  availableFrom: string;
  availableUntil: string;
  /** Empty = no limit. */
  limitCount: string;
  limitPeriod: string;
}

interface Product {
  id: bigint;
  title: string;
  texts: Array<{ locale: string; title: string; description: string }>;
  active: boolean;
  atoms: Array<{ kind: string; quantity: bigint }>;
  prices: Array<{ method: string; amount: bigint; currency: string }>;
  subscriptionPeriod: number;
  availableFromUnix: bigint;
  availableUntilUnix: bigint;
  purchaseLimit: number;
  purchaseLimitPeriod: string;
}

/** Field errors by group: each language's title and description, atoms, prices, the card price's currency, the offer fields, other. */
type Errors = Partial<
  Record<'title' | 'description' | 'title_ru' | 'description_ru' | 'atoms' | 'prices' | 'currency' | 'offer' | 'other', string>
>;

const LIMIT_PERIODS = ['day', 'week', 'month', 'ever'] as const;
const MONTHLY = 2_592_000;
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

/** A datetime-local value read as UTC, in unix seconds; 0 for empty; null when malformed. */
function unixOfLocal(v: string): bigint | null {
  if (v === '') return 0n;
  if (!LOCAL_TIME.test(v)) return null;
  const ms = Date.parse(`${v}Z`);
  return Number.isNaN(ms) ? null : BigInt(Math.floor(ms / 1000));
}

/** Unix seconds as a datetime-local value in UTC (`YYYY-MM-DDTHH:MM`, seconds when not 0); empty for 0. */
function localOfUnix(seconds: bigint): string {
  if (seconds === 0n) return '';
  const iso = new Date(Number(seconds) * 1000).toISOString();
  return iso.endsWith(':00.000Z') ? iso.slice(0, 16) : iso.slice(0, 19);
}

/** The offer column of the list: subscription, window (UTC) and limit, or empty. */
function offerSummary(p: Product): string {
  const parts: string[] = [];
  if (p.subscriptionPeriod > 0) parts.push('monthly stars subscription');
  if (p.availableFromUnix > 0n || p.availableUntilUnix > 0n)
    parts.push(`on offer ${localOfUnix(p.availableFromUnix) || 'now'} to ${localOfUnix(p.availableUntilUnix) || 'open'} UTC`);
  if (p.purchaseLimit > 0)
    parts.push(`limit ${p.purchaseLimit} per player ${p.purchaseLimitPeriod === 'ever' ? 'ever' : `per ${p.purchaseLimitPeriod}`}`);
  return parts.join('; ');
}

const EMPTY: Draft = {
  id: '0',
  title: '',
  description: '',
  titleRu: '',
  descriptionRu: '',
  active: true,
  chips: '',
  noAdsDays: '',
  noAdsForever: false,
  hints: '',
  priceChips: '',
  priceProvider: '',
  providerCurrency: 'RUB',
  priceXtr: '',
  subscription: false,
  availableFrom: '',
  availableUntil: '',
  limitCount: '',
  limitPeriod: 'day',
};

async function listProducts(client: ConsoleClient, operator: ConsoleOperator): Promise<Product[]> {
  const res = await client.consoleListProducts(
    { body: encodeTable((b) => fb.ConsoleProductQuery.createConsoleProductQuery(b)) },
    asOperator(operator.token),
  );
  return decodeTable(
    res.body,
    (bb) => fb.ProductList.getRootAsProductList(bb),
    (t) =>
      Array.from({ length: t.productsLength() }, (_, i) => {
        const p = t.products(i);
        return {
          id: p?.productId() ?? 0n,
          title: p?.title() ?? '',
          texts: Array.from({ length: p?.textsLength() ?? 0 }, (_, j) => ({
            locale: p?.texts(j)?.locale() ?? '',
            title: p?.texts(j)?.title() ?? '',
            description: p?.texts(j)?.description() ?? '',
          })),
          active: p?.active() ?? false,
          atoms: Array.from({ length: p?.atomsLength() ?? 0 }, (_, j) => ({
            kind: p?.atoms(j)?.kind() ?? '',
            quantity: p?.atoms(j)?.quantity() ?? 0n,
          })),
          prices: Array.from({ length: p?.pricesLength() ?? 0 }, (_, j) => ({
            method: p?.prices(j)?.method() ?? '',
            amount: p?.prices(j)?.amount() ?? 0n,
            currency: p?.prices(j)?.currency() ?? '',
          })),
          subscriptionPeriod: p?.subscriptionPeriod() ?? 0,
          availableFromUnix: p?.availableFromUnix() ?? 0n,
          availableUntilUnix: p?.availableUntilUnix() ?? 0n,
          purchaseLimit: p?.purchaseLimit() ?? 0,
          purchaseLimitPeriod: p?.purchaseLimitPeriod() ?? '',
        };
      }),
  );
}

function draftOf(p: Product): Draft {
  const atom = (k: string) => p.atoms.find((a) => a.kind === k)?.quantity.toString() ?? '';
  const price = (m: string) => p.prices.find((x) => x.method === m);
  const text = (l: string) => p.texts.find((t) => t.locale === l);
  return {
    id: p.id.toString(),
    title: text('en')?.title ?? p.title,
    description: text('en')?.description ?? '',
    titleRu: text('ru')?.title ?? '',
    descriptionRu: text('ru')?.description ?? '',
    active: p.active,
    chips: atom('chips'),
    noAdsDays: atom('no_ads_days'),
    noAdsForever: p.atoms.some((a) => a.kind === 'no_ads_forever'),
    hints: atom('hints'),
    priceChips: price('chips')?.amount.toString() ?? '',
    priceProvider: price('provider')?.amount.toString() ?? '',
    providerCurrency: price('provider')?.currency ?? 'RUB',
    priceXtr: price('xtr')?.amount.toString() ?? '',
    subscription: p.subscriptionPeriod === MONTHLY,
    availableFrom: localOfUnix(p.availableFromUnix),
    availableUntil: localOfUnix(p.availableUntilUnix),
    limitCount: p.purchaseLimit > 0 ? String(p.purchaseLimit) : '',
    limitPeriod: p.purchaseLimit > 0 ? p.purchaseLimitPeriod : 'day',
  };
}

function editor(operator: ConsoleOperator, d: Draft, errors: Errors) {
  const err = (key: keyof Errors) => (errors[key] ? html` <span class="error" id="${key}-error">${errors[key]}</span>` : '');
  const num = (name: string, value: string, label: string) =>
    html`<label>${label} <input name="${name}" value="${value}" inputmode="numeric" size="10"></label>`;
  return html`${err('other')}<form method="post" action="/_gm/catalog/save" id="product-form">${csrfField(operator)}
<input type="hidden" name="product_id" value="${d.id}">
<fieldset><legend>English</legend>
<p><label>Title (English) <input name="title" value="${d.title}" maxlength="200" size="40"></label>${err('title')}</p>
<p><label>Description (English) <input name="description" value="${d.description}" maxlength="300" size="60"></label>${err('description')}</p></fieldset>
<fieldset lang="ru"><legend>Russian</legend>
<p><label>Title (Russian) <input name="title_ru" value="${d.titleRu}" maxlength="200" size="40"></label>${err('title_ru')}</p>
<p><label>Description (Russian) <input name="description_ru" value="${d.descriptionRu}" maxlength="300" size="60"></label>${err('description_ru')}</p></fieldset>
<p>Each title: 1-64 characters, none of &amp; &lt; &gt; " '. A description (optional, at most 255 characters) says what the title does not; it must not repeat the title.</p>
<p><label><input type="checkbox" name="active" value="1"${d.active ? html` checked` : ''}> Active</label></p>
<fieldset><legend>Atoms (empty = not included)</legend>${num('atom_chips', d.chips, 'Chips')}${num('atom_no_ads_days', d.noAdsDays, 'No-ads days')}
<label><input type="checkbox" name="atom_no_ads_forever" value="1"${d.noAdsForever ? html` checked` : ''}> No ads forever</label>${num('atom_hints', d.hints, 'Hints')}${err('atoms')}</fieldset>
<fieldset><legend>Prices (empty = not sold that way; money in minor units)</legend>${num('price_chips', d.priceChips, 'Chips')}
${num('price_provider', d.priceProvider, 'Card (minor units)')}<label>Currency <input name="price_provider_currency" value="${d.providerCurrency}" size="4"></label>${err('currency')}
${num('price_xtr', d.priceXtr, 'Stars (XTR)')}${err('prices')}</fieldset>
<fieldset id="offer"><legend>Subscription, offer window and purchase limit</legend>
<p><label><input type="checkbox" name="subscription" value="1"${d.subscription ? html` checked` : ''}> Monthly stars subscription (30 days, renewed by Telegram; a stars price only)</label></p>
<p><label>On offer from (UTC) <input type="datetime-local" name="available_from" value="${d.availableFrom}"></label>
<label>until (UTC, not included) <input type="datetime-local" name="available_until" value="${d.availableUntil}"></label> (empty = open on that side; outside the window the shop hides the product and refuses orders)</p>
<p>${num('limit_count', d.limitCount, 'At most (per player)')} <label>purchases per <select name="limit_period">${LIMIT_PERIODS.map(
    (p) =>
      html`<option value="${p}"${d.limitPeriod === p ? html` selected` : ''}>${p === 'ever' ? 'ever (all time)' : `${p} (UTC)`}</option>`,
  )}</select></label> (empty = no limit; paid and pending orders and chips purchases count)</p>${err('offer')}</fieldset>
<p><button type="submit" id="save">Save</button> <a href="/_gm/catalog">Back to the catalog</a></p></form>`;
}

/** GET /_gm/catalog (catalog_editor): every product with its atoms and prices. */
export function catalogList(client: ConsoleClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const products = await listProducts(client, operator);
    const saved = typeof req.query['saved'] === 'string' && /^\d{1,19}$/.test(req.query['saved']) ? req.query['saved'] : null;
    send(
      res,
      200,
      page(
        'Catalog',
        html`${saved ? html`<p class="notice" id="saved">Product ${saved} saved.</p>` : ''}<p><a id="new" href="/_gm/catalog/new">New product</a></p>
<table id="products"><tr><th>Id</th><th>Title</th><th>Title (Russian)</th><th>Active</th><th>Atoms</th><th>Prices</th><th>Offer</th><th></th></tr>
${products.map(
  (
    p,
  ) => html`<tr data-id="${p.id}"><td>${p.id}</td><td class="title">${p.title}</td><td class="title-ru" lang="ru">${p.texts.find((t) => t.locale === 'ru')?.title ?? ''}</td><td>${p.active ? 'yes' : 'no'}</td>
<td>${p.atoms.map((a) => `${a.kind} ${a.quantity}`).join(', ')}</td><td>${p.prices.map((x) => `${x.method}: ${formatAmount(x.amount, x.currency)}`).join(', ')}</td>
<td class="offer">${offerSummary(p)}</td><td><a href="/_gm/catalog/${p.id.toString()}">Edit</a></td></tr>`,
)}</table>`,
        operator,
      ),
    );
  };
}

/** GET /_gm/catalog/new and /_gm/catalog/:id (catalog_editor): the editor form. */
export function catalogEdit(client: ConsoleClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const id = req.params['id'] === undefined ? undefined : paramId(req);
    if (id === undefined) {
      send(res, 200, page('New product', editor(operator, EMPTY, {}), operator));
      return;
    }
    const product = /^\d{1,19}$/.test(id) ? (await listProducts(client, operator)).find((p) => p.id === BigInt(id)) : undefined;
    if (!product) {
      sendError(res, 404, 'Catalog', 'No such product.', operator);
      return;
    }
    send(res, 200, page(`Edit product ${id}`, editor(operator, draftOf(product), {}), operator));
  };
}

function field(body: Record<string, unknown>, name: string): string {
  const v = body[name];
  return typeof v === 'string' ? v.trim() : '';
}

/**
 * POST /_gm/catalog/save (catalog_editor, CSRF): sends the draft to the backend's upsert; a
 * refusal (invalid_title, invalid_atoms, invalid_prices, invalid_currency, invalid_offer) re-renders the form with
 * the reason next to its field.
 */
export function catalogSave(client: ConsoleClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const d: Draft = {
      id: field(body, 'product_id') || '0',
      title: typeof body['title'] === 'string' ? body['title'] : '',
      description: typeof body['description'] === 'string' ? body['description'] : '',
      titleRu: typeof body['title_ru'] === 'string' ? body['title_ru'] : '',
      descriptionRu: typeof body['description_ru'] === 'string' ? body['description_ru'] : '',
      active: body['active'] === '1',
      chips: field(body, 'atom_chips'),
      noAdsDays: field(body, 'atom_no_ads_days'),
      noAdsForever: body['atom_no_ads_forever'] === '1',
      hints: field(body, 'atom_hints'),
      priceChips: field(body, 'price_chips'),
      priceProvider: field(body, 'price_provider'),
      providerCurrency: field(body, 'price_provider_currency').toUpperCase(),
      priceXtr: field(body, 'price_xtr'),
      subscription: body['subscription'] === '1',
      availableFrom: field(body, 'available_from'),
      availableUntil: field(body, 'available_until'),
      limitCount: field(body, 'limit_count'),
      limitPeriod: field(body, 'limit_period'),
    };
    const whole = (v: string) => /^\d{1,15}$/.test(v);
    const errors: Errors = {};
    if (!/^\d{1,19}$/.test(d.id)) errors.other = 'Malformed product id.';
    // The editor edits every language: a product without Russian words would show a Russian player English.
    if (d.titleRu.trim() === '') errors.title_ru = 'A Russian title is needed (Russian players read it in the wallet and on the invoice).';
    if (![d.chips, d.noAdsDays, d.hints].every((v) => v === '' || whole(v))) errors.atoms = 'Quantities must be whole numbers.';
    if (![d.priceChips, d.priceProvider, d.priceXtr].every((v) => v === '' || whole(v)))
      errors.prices = 'Prices must be whole numbers (money in minor units).';
    const from = unixOfLocal(d.availableFrom);
    const until = unixOfLocal(d.availableUntil);
    if (from === null || until === null) errors.offer = 'The offer window edges are UTC date and time (YYYY-MM-DDTHH:MM), or empty.';
    else if (d.limitCount !== '' && !/^\d{1,7}$/.test(d.limitCount)) errors.offer = 'The purchase limit must be a whole number.';
    else if (!(LIMIT_PERIODS as readonly string[]).includes(d.limitPeriod)) errors.offer = 'Choose the purchase limit period.';
    const title = d.id === '0' ? 'New product' : `Edit product ${d.id}`;
    if (Object.keys(errors).length > 0) {
      send(res, 400, page(title, editor(operator, d, errors), operator));
      return;
    }
    const atoms: Array<[string, bigint]> = [];
    if (d.chips) atoms.push(['chips', BigInt(d.chips)]);
    if (d.noAdsDays) atoms.push(['no_ads_days', BigInt(d.noAdsDays)]);
    if (d.noAdsForever) atoms.push(['no_ads_forever', 1n]);
    if (d.hints) atoms.push(['hints', BigInt(d.hints)]);
    const prices: Array<[string, bigint, string]> = [];
    if (d.priceChips) prices.push(['chips', BigInt(d.priceChips), 'CHIPS']);
    if (d.priceProvider) prices.push(['provider', BigInt(d.priceProvider), d.providerCurrency]);
    if (d.priceXtr) prices.push(['xtr', BigInt(d.priceXtr), 'XTR']);
    const texts: Array<[string, string, string]> = [
      ['en', d.title, d.description],
      ['ru', d.titleRu, d.descriptionRu],
    ];
    const limit = d.limitCount === '' ? 0 : Number(d.limitCount);
    const draft = encodeTable((b) => {
      const t = b.createString(d.title);
      const x = texts.map(([locale, title, description]) =>
        fb.ProductText.createProductText(b, b.createString(locale), b.createString(title), b.createString(description)),
      );
      const a = atoms.map(([kind, q]) => fb.ProductAtom.createProductAtom(b, b.createString(kind), q));
      const p = prices.map(([m, amount, cur]) => {
        const method = b.createString(m);
        const currency = b.createString(cur);
        return fb.ProductPrice.createProductPrice(b, method, amount, currency);
      });
      return fb.ProductDraft.createProductDraft(
        b,
        BigInt(d.id),
        t,
        d.active,
        fb.ProductDraft.createAtomsVector(b, a),
        fb.ProductDraft.createPricesVector(b, p),
        fb.ProductDraft.createTextsVector(b, x),
        d.subscription ? MONTHLY : 0,
        from ?? 0n,
        until ?? 0n,
        limit,
        limit > 0 ? b.createString(d.limitPeriod) : 0,
      );
    });
    try {
      const saved = decodeTable(
        (await client.consoleUpsertProduct({ body: draft }, asOperator(operator.token))).body,
        (bb) => fb.ProductRecord.getRootAsProductRecord(bb),
        (t) => t.productId(),
      );
      res.redirect(303, `/_gm/catalog?saved=${saved.toString()}`);
    } catch (err: unknown) {
      const f = failureOf(err);
      const where: keyof Errors | null =
        f.errorCode === 'invalid_title'
          ? textField(f.message)
          : f.errorCode === 'invalid_atoms'
            ? 'atoms'
            : f.errorCode === 'invalid_prices'
              ? 'prices'
              : f.errorCode === 'invalid_currency'
                ? 'currency'
                : f.errorCode === 'invalid_offer'
                  ? 'offer'
                  : f.errorCode === 'unknown_product'
                    ? 'other'
                    : null;
      if (where === null) {
        if (f.errorCode === 'internal' || f.errorCode === 'unavailable') req.log.error({ err }, 'console catalog save failed');
        sendError(res, f.status, title, f.message, operator);
        return;
      }
      send(res, 400, page(title, editor(operator, d, { [where]: f.message }), operator));
    }
  };
}

/** The form field a backend `invalid_title` refusal is about: its message starts `<locale> <field>:` (catalog/validate.ts). */
function textField(message: string): keyof Errors {
  const m = /^(en|ru) (title|description):/.exec(message);
  if (!m) return 'title';
  const field = m[2] === 'description' ? 'description' : 'title';
  return m[1] === 'ru' ? `${field}_ru` : field;
}
