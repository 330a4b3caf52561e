import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { grantChips } from '@wordgame/testkit';
import { call } from './support/edge.js';
import {
  balance,
  bearer,
  directCustomer,
  startPaymentsStack,
  type Customer,
  type OrderBody,
  type PaymentsStack,
} from './support/payments-stack.js';
import {
  attributes,
  buildWalletPage,
  launchWalletChromium,
  SCREENSHOT_DIR,
  SCROLLS_SIDEWAYS,
  showTab,
  UNNAMED_CONTROLS,
  VIEWPORTS,
  watchPage,
} from './support/wallet-browser.js';

/**
 * The wallet page as a new web player sees it, in Chromium against the real stack: the sign-in form
 * naming its action once, only the wallets that hold something, the document's language following
 * the words, and the history tab (a card purchase with its receipt, the chips spent, support's make-good, the refund and
 * the debt it left, in English and Russian, paged with "show older").
 */
describe('the wallet page history tab in headless Chromium on the real stack', () => {
  let stack: PaymentsStack;
  let browser: Browser;
  let walletDir: string;
  let base: string;
  let player: Customer;
  let order: OrderBody;

  const operator = () => ({ authorization: `Bearer ${stack.operatorToken}` });
  const product = async (json: unknown) => {
    const res = await call(`${base}/_gm/api/catalog/products`, { method: 'POST', headers: operator(), json });
    if (res.status !== 201) throw new Error(`create product: ${res.status} ${JSON.stringify(res.body)}`);
    return (res.body as { product_id: string }).product_id;
  };

  beforeAll(async () => {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    walletDir = mkdtempSync(join(tmpdir(), 'wallet-web-'));
    buildWalletPage(walletDir);
    stack = await startPaymentsStack({ walletDir, backendEnv: { BACKEND_YOOKASSA_VAT_CODE: '2' } });
    base = stack.urls.httpUrl;
    const pack = await product({
      texts: {
        en: { title: 'Bag of chips', description: 'Enough for hints and ad-free days.' },
        ru: { title: 'Мешок фишек', description: 'Хватит на подсказки и дни без рекламы.' },
      },
      atoms: [{ kind: 'chips', quantity: '100' }],
      prices: [{ method: 'provider', amount: '9900', currency: 'RUB' }],
    });
    const hints = await product({
      texts: { en: { title: 'Hints x5', description: '' }, ru: { title: 'Подсказки x5', description: '' } },
      atoms: [{ kind: 'hints', quantity: '5' }],
      prices: [{ method: 'chips', amount: '80', currency: 'CHIPS' }],
    });
    player = await directCustomer(stack, 'history.player@example.com', true);
    // 100 chips by card, 80 spent, the pack refunded: the web wallet is left at -80, a debt.
    const created = await call(`${stack.api}/user/wallet/orders`, {
      method: 'POST',
      headers: bearer(player),
      json: { product_id: pack, rail: 'card' },
    });
    order = created.body as OrderBody;
    const payment = stack.provider.control.payments().find((p) => p.payment.metadata?.['order_id'] === order.order_id);
    await stack.provider.control.succeedPayment(payment?.payment.id ?? '');
    expect(await balance(stack.api, player, 'direct')).toBe('100');
    expect((await call(`${stack.api}/user/wallet`, { method: 'POST', headers: bearer(player), json: { product_id: hints } })).status).toBe(
      200,
    );
    expect((await call(`${base}/_gm/api/orders/${order.order_id}/refund`, { method: 'POST', headers: operator() })).body).toMatchObject({
      status: 'succeeded',
    });
    // Support's make-good of 3 hints and 2 no-ads days (as ledger/postings/make-good.ts writes it), then
    // ten small grants, so the make-good and the refund are on the second page.
    await stack.db.query(
      `update benefits set hints = hints + 3, no_ads_until = now() + interval '2 days' where account_id = $1 and origin = 'direct'`,
      [player.accountId],
    );
    await stack.db.query(
      `insert into ledger_operations (account_id, kind, benefit_origin, hints_delta, no_ads_days, note) values ($1, 'make_good', 'direct', 3, 2, 'make-good 1: a hint was lost to a server fault')`,
      [player.accountId],
    );
    for (let i = 1; i <= 10; i++) await grantChips(stack.db, player.accountId, 'direct', BigInt(i));
    browser = await launchWalletChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    rmSync(walletDir, { recursive: true, force: true });
  });

  /** The page signed in as `who` (the stored web session; the history's player unless named), in `locale`. */
  async function signedIn(locale: string, who: Customer = player): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: VIEWPORTS[0], locale });
    await context.addInitScript(`localStorage.setItem('wallet.session', ${JSON.stringify(who.token)})`);
    const page = await context.newPage();
    const problems = watchPage(page);
    await page.goto(`${base}/wallet`);
    await page.waitForSelector('#context[data-kind="direct"]');
    await page.waitForSelector('#panel[data-tab="wallet"]:not([aria-busy]) > *');
    return { page, problems };
  }

  const entries = (page: Page) => attributes(page, '#history li', 'data-kind');
  const text = async (page: Page, selector: string) => (await page.textContent(selector)) ?? '';

  it('the sign-in form names its action once, each other part says what it is; the document says the language it shows', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS[0], locale: 'en-US' });
    const page = await context.newPage();
    const problems = watchPage(page);
    await page.goto(`${base}/wallet`);
    await page.waitForSelector('#signin-form');
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    const section = await text(page, 'section[aria-labelledby="signin-title"]');
    expect(section.match(/sign in/gi) ?? []).toHaveLength(1);
    expect(await text(page, '#signin-submit')).toBe('Sign in');
    expect(await text(page, '#signin-title')).toBe('Your account');
    await page.check('input[name=mode][value=signup]');
    expect(await text(page, '#signin-submit')).toBe('Create account');
    expect(await page.evaluate<string[]>(UNNAMED_CONTROLS)).toEqual([]);
    // The served document already says so, before the script runs.
    const served = await (await fetch(`${base}/wallet`, { headers: { 'accept-language': 'en-US' } })).text();
    expect(served).toMatch(/<html\b[^>]*\blang="en">/);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a web player sees only the wallet that holds something or spends here, not empty Telegram and VK wallets', async () => {
    const { page, problems } = await signedIn('en-US');
    expect(await attributes(page, '#segments li', 'data-segment')).toEqual(['direct']);
    expect(await text(page, '#panel')).not.toMatch(/Telegram wallet|VK wallet/);
    expect(await attributes(page, '#benefits li', 'data-origin')).toEqual(['direct']);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("a web player is shown a host's wallet once it holds something: its chips, its hints; a spent one stays hidden", async () => {
    const other = await directCustomer(stack, 'history.hosts@example.com', true);
    // Chips in the Telegram wallet, hints left from VK, and a Telegram no-ads that has run out with its hints used up.
    await grantChips(stack.db, other.accountId, 'telegram', 20n);
    await stack.db.query(
      `insert into benefits (account_id, origin, hints, no_ads_until) values ($1, 'vk', 2, null), ($1, 'telegram', 0, now() - interval '1 day')`,
      [other.accountId],
    );
    const api = (await call(`${stack.api}/user/wallet`, { headers: bearer(other) })).body as {
      segments: { segment: string }[];
      benefits: { origin: string }[];
    };
    // The API lists every wallet the context may see; the page leaves out the empty and spent ones.
    expect(api.segments.map((s) => s.segment)).toEqual(expect.arrayContaining(['direct', 'telegram', 'vk']));
    expect(api.benefits.map((b) => b.origin)).toEqual(expect.arrayContaining(['telegram', 'vk']));
    const { page, problems } = await signedIn('en-US', other);
    expect(await attributes(page, '#segments li', 'data-segment')).toEqual(
      api.segments.map((s) => s.segment).filter((s) => s === 'direct' || s === 'telegram'),
    );
    expect(await page.getAttribute('#segments li[data-segment="telegram"]', 'data-balance')).toBe('20');
    expect(await attributes(page, '#benefits li', 'data-origin')).toEqual(
      api.benefits.map((b) => b.origin).filter((o) => o === 'direct' || o === 'vk'),
    );
    expect(await text(page, '#segments')).not.toMatch(/VK wallet/);
    expect(await text(page, '#spend-order')).not.toMatch(/VK wallet/);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("English: the history shows the grants, then on the next page support's make-good (without its reason), the refund with its debt, the chip spend and the refunded card order with its receipts", async () => {
    const { page, problems } = await signedIn('en-US');
    await showTab(page, 'history');
    expect(await entries(page)).toEqual(Array(10).fill('grant'));
    const grant = await text(page, '#history li:first-child');
    expect(grant).toContain('+10 chips · done');
    expect(grant).toContain('10 chips added to the Web wallet');
    // Grants after the refund pay the debt off; only the refund says why there is one.
    expect(grant).toContain('The Web wallet is still at −25 chips: new chips pay off the debt first.');
    expect(grant).not.toContain('refunded');
    expect(await attributes(page, '#history li.debt', 'data-kind')).toEqual([]);
    await page.click('#history-more');
    await page.waitForSelector('#history li:nth-child(14)');
    expect(await page.isHidden('#history-more')).toBe(true);
    expect((await entries(page)).slice(10)).toEqual(['make_good', 'refund', 'spend', 'order']);
    const makeGood = await text(page, '#history li[data-kind="make_good"]');
    expect(makeGood).toContain('Granted by support');
    expect(makeGood).toContain('3 hints added');
    expect(makeGood).toContain('No ads for 2 more days');
    // The operator's reason is an internal note: the player never sees it.
    expect(makeGood).not.toContain('server fault');
    expect(makeGood).not.toContain('with chips');
    const refund = await text(page, '#history li[data-kind="refund"]');
    expect(refund).toContain('Refund: Bag of chips');
    expect(refund).toContain('99.00 ₽ went back the way it was paid');
    expect(refund).toContain('100 chips taken from the Web wallet');
    expect(refund).toContain('This left the Web wallet at −80 chips: a debt');
    expect(await attributes(page, '#history li.debt', 'data-kind')).toEqual(['refund']);
    const spend = await text(page, '#history li[data-kind="spend"]');
    expect(spend).toContain('Bought with chips: Hints x5');
    expect(spend).toContain('−80 chips · with chips · done');
    expect(spend).toContain('80 chips taken from the Web wallet');
    const bought = await text(page, `#history li[data-entry-id="order:${order.order_id}"]`);
    expect(bought).toContain('Order: Bag of chips');
    expect(bought).toContain('99.00 ₽ · by card · refunded');
    expect(bought).toContain('Refunded on');
    expect(bought).toContain('A receipt was sent to your e-mail.');
    expect(bought).toContain('A refund receipt was sent to your e-mail.');
    expect(await page.evaluate<string[]>(UNNAMED_CONTROLS)).toEqual([]);
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      expect(await page.evaluate<boolean>(SCROLLS_SIDEWAYS)).toBe(false);
      await page.screenshot({ path: join(SCREENSHOT_DIR, `web-history-${viewport.width}x${viewport.height}.png`), fullPage: true });
    }
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('Russian: the same history in Russian words, the document in Russian', async () => {
    const { page, problems } = await signedIn('ru-RU');
    expect(await page.getAttribute('html', 'lang')).toBe('ru');
    await showTab(page, 'history');
    expect(await text(page, '#tab-history')).toBe('История');
    await page.click('#history-more');
    await page.waitForSelector('#history li:nth-child(14)');
    const makeGood = await text(page, '#history li[data-kind="make_good"]');
    expect(makeGood).toContain('Начислено поддержкой');
    expect(makeGood).toContain('Добавлено подсказок: 3');
    expect(makeGood).toContain('Без рекламы ещё на 2 дн.');
    const refund = await text(page, '#history li[data-kind="refund"]');
    expect(refund).toContain('Возврат: Мешок фишек');
    expect(refund).toContain('99,00 ₽');
    expect(refund).toContain('Списано 100 фишек — Веб-кошелёк');
    expect(refund).toContain('осталось −80 фишек: это долг');
    expect(await text(page, '#history li[data-kind="spend"]')).toContain('Куплено за фишки: Подсказки x5');
    const bought = await text(page, `#history li[data-entry-id="order:${order.order_id}"]`);
    expect(bought).toContain('Заказ: Мешок фишек');
    expect(bought).toContain('картой · возвращён');
    expect(bought).toContain('Чек отправлен на вашу почту.');
    expect(bought).toContain('Чек возврата отправлен на вашу почту.');
    expect(await text(page, '#panel')).not.toMatch(/[A-Za-z]{4,}/);
    // Four tabs in Russian still fit a phone.
    expect(await page.evaluate<boolean>(SCROLLS_SIDEWAYS)).toBe(false);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'web-history-ru-390x844.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
