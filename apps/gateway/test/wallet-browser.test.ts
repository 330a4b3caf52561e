import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { grantChips, signTelegramInitData } from '@wordgame/testkit';
import { eventually } from './support/botlink-gateway.js';
import { TELEGRAM_BOT_TOKEN, VK_APP_SECRET } from './support/chain.js';
import { call } from './support/edge.js';
import { nowSeconds, vkLaunchParams } from './support/launch-data.js';
import { startPaymentsStack, type PaymentsStack } from './support/payments-stack.js';
import {
  attributes,
  buildWalletPage,
  captureTabs,
  launchWalletChromium,
  SCREENSHOT_DIR,
  showTab,
  UNNAMED_CONTROLS,
  VIEWPORTS,
  watchPage,
} from './support/wallet-browser.js';

/**
 * The wallet page as players use it, in Debian's Chromium against the real stack: the page built
 * from its sources, the gateway serving it, the backend process, PostgreSQL, the provider emulator
 * (checkout page and notifications) and the platform emulator with the real bot (stars).
 */
describe('the wallet page in headless Chromium on the real stack', () => {
  let stack: PaymentsStack;
  let browser: Browser;
  let walletDir: string;
  let base: string;
  let pack: string;
  let hints: string;

  beforeAll(async () => {
    walletDir = mkdtempSync(join(tmpdir(), 'wallet-web-'));
    buildWalletPage(walletDir);
    stack = await startPaymentsStack({ bot: true, walletDir });
    base = stack.urls.httpUrl;
    const packRes = await call(`${base}/_gm/api/catalog/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.operatorToken}` },
      json: {
        texts: {
          en: { title: 'Bag of chips', description: 'Enough for hints and ad-free days.' },
          ru: { title: 'Мешок фишек', description: 'Хватит на подсказки и дни без рекламы.' },
        },
        atoms: [{ kind: 'chips', quantity: '500' }],
        prices: [
          { method: 'xtr', amount: '50', currency: 'XTR' },
          { method: 'provider', amount: '49900', currency: 'RUB' },
        ],
      },
    });
    pack = (packRes.body as { product_id: string }).product_id;
    const res = await call(`${base}/_gm/api/catalog/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.operatorToken}` },
      json: {
        texts: {
          en: { title: 'Hints x5', description: 'For the words that will not come.' },
          ru: { title: 'Подсказки x5', description: 'Для слов, которые не идут.' },
        },
        atoms: [{ kind: 'hints', quantity: '5' }],
        prices: [{ method: 'chips', amount: '100', currency: 'CHIPS' }],
      },
    });
    hints = (res.body as { product_id: string }).product_id;
    browser = await launchWalletChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    rmSync(walletDir, { recursive: true, force: true });
  });

  async function open(url: string, viewport: (typeof VIEWPORTS)[number], locale: string): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport, locale });
    const page = await context.newPage();
    const problems = watchPage(page);
    await page.goto(url);
    return { page, problems };
  }

  /** The confirmation link the backend mailed to `email` (its dev mailbox), as the player would click it. */
  async function mailedLink(email: string): Promise<string> {
    let link: string | undefined;
    await eventually(() => {
      for (const file of readdirSync(stack.backend.mailDir)) {
        const mail = readFileSync(join(stack.backend.mailDir, file), 'utf8').replace(/=\r?\n/g, '');
        if (mail.includes(email)) link = /(http:\/\/\S+confirm-email\?token=[A-Za-z0-9_-]+)/.exec(mail)?.[1];
        if (link) return true;
      }
      return false;
    });
    return link ?? '';
  }

  const accountOf = async (email: string) =>
    (await stack.db.query<{ id: string }>('select id::text from accounts where email = $1', [email])).rows[0]?.id ?? '';
  const spends = async (account: string) =>
    (
      await stack.db.query<{ n: number }>(`select count(*)::int as n from ledger_operations where account_id = $1 and kind = 'spend'`, [
        account,
      ])
    ).rows[0]?.n;

  it('web: signs up, sees the e-mail notice, confirms from the mailbox, pays a pack by card and sees the credit, a double click spends once', async () => {
    const email = 'web.player@example.com';
    const { page, problems } = await open(`${base}/wallet`, VIEWPORTS[1], 'en-US');
    await page.check('input[name=mode][value=signup]');
    await page.fill('#signin-email', email);
    await page.fill('#signin-password', 'wallet password 1');
    expect(await page.evaluate<string[]>(UNNAMED_CONTROLS)).toEqual([]);
    await page.press('#signin-password', 'Enter');
    await page.waitForSelector('#context[data-kind="direct"]');
    expect(await page.getAttribute('html', 'lang')).toBe('en');

    await showTab(page, 'buy');
    // Signed up with an address that is not confirmed yet: the notice asks to confirm it, not to add one.
    expect(await page.getAttribute('#email-notice', 'data-email')).toBe('unconfirmed');
    expect(await page.textContent('#email-notice')).toContain(`confirm your e-mail address: open the link we sent to ${email}`);
    expect(await page.textContent('#email-notice')).not.toMatch(/\badd\b/i);
    expect(await page.textContent(`li[data-product-id="${pack}"] h3`)).toBe('Bag of chips');
    expect(await page.textContent(`li[data-product-id="${pack}"] .description`)).toBe('Enough for hints and ad-free days.');
    expect(await page.textContent(`li[data-product-id="${pack}"] .detail`)).toBe('500 chips');
    const card = `li[data-product-id="${pack}"] button[data-method="card"]`;
    expect(await page.isDisabled(card)).toBe(true);
    expect(await page.$(`li[data-product-id="${pack}"] button[data-method="stars"]`)).toBeNull();
    expect(await page.evaluate<string[]>(UNNAMED_CONTROLS)).toEqual([]);
    await showTab(page, 'profile');
    expect(await attributes(page, '#providers li', 'data-provider')).toEqual(['email', 'telegram', 'vk']);
    expect(await page.textContent('#email-submit')).toBe('Link e-mail');
    // The sign-in methods are facts, not links: nothing in the list can be clicked or looks like it can,
    // and each says where it is used (Telegram and VK only from the game's mini-app there).
    expect(await page.$$('#providers a, #providers button, #providers [role=link], #providers [role=button]')).toEqual([]);
    const looks = await page.evaluate<Array<{ cursor: string; underline: boolean; text: string }>>(`
      Array.from(document.querySelectorAll('#providers li')).map((li) => {
        const style = getComputedStyle(li);
        return { cursor: style.cursor, underline: style.textDecorationLine.includes('underline'), text: li.textContent ?? '' };
      })`);
    expect(looks.map((l) => [l.cursor, l.underline])).toEqual([
      ['default', false],
      ['default', false],
      ['default', false],
    ]);
    expect(looks.map((l) => l.text)).toEqual([
      'E-mail and password — on this page',
      'Telegram — from the game\u2019s mini-app in Telegram',
      'VK — from the game\u2019s mini-app in VK',
    ]);

    // The mailed link shows a page with one button; opening it confirms nothing, pressing it does.
    const link = await mailedLink(email);
    const confirmedAt = async () =>
      (await stack.db.query<{ at: Date | null }>('select email_confirmed_at as at from accounts where email = $1', [email])).rows[0]?.at;
    await page.goto(link);
    await page.waitForSelector('#confirm-result[data-outcome="ready"]');
    expect(await confirmedAt()).toBeNull();
    expect(await page.evaluate<string[]>(UNNAMED_CONTROLS)).toEqual([]);
    await page.click('#confirm-button');
    await page.waitForSelector('#confirm-result[data-outcome="confirmed"]');
    expect(await page.textContent('#confirm-result')).toBe(`${email} is confirmed.`);
    expect(await confirmedAt()).not.toBeNull();
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await page.screenshot({ path: join(SCREENSHOT_DIR, `web-confirm-${viewport.width}x${viewport.height}.png`) });
    }
    // The page needs no JavaScript: a browser with scripts off gets as far (here: the link is used).
    const noScript = await browser.newContext({ viewport: VIEWPORTS[0], locale: 'en-US', javaScriptEnabled: false });
    const plain = await noScript.newPage();
    const plainProblems = watchPage(plain);
    await plain.goto(link);
    await plain.click('#confirm-button');
    await plain.waitForSelector('#confirm-result[data-outcome="error"]');
    expect(await plain.textContent('#confirm-result')).toContain('already used');
    expect(plainProblems).toEqual([]);
    await noScript.close();

    await page.goto(`${base}/wallet`);
    await showTab(page, 'profile');
    expect(await page.getAttribute('#email-state', 'data-confirmed')).toBe('true');
    // Next to a confirmed address the form changes it; nothing offers to link an e-mail again.
    expect(await page.textContent('#email-submit')).toBe('Change e-mail');
    expect(await page.textContent('#panel')).not.toContain('Link e-mail');
    await showTab(page, 'buy');
    expect(await page.$('#email-notice')).toBeNull();
    await page.click(card);
    await page.waitForURL((url) => url.pathname.startsWith('/checkout/'));
    await page.click('button[value="pay"]');
    await page.waitForURL((url) => url.origin === base && url.pathname === '/wallet');
    await page.waitForSelector('#order-status[data-state="paid"]', { timeout: 20_000 });
    await page.waitForSelector('li[data-segment="direct"][data-balance="500"]');

    // A declined payment: the return page says the order failed and why, and nothing is credited.
    await showTab(page, 'buy');
    await page.click(card);
    await page.waitForURL((url) => url.pathname.startsWith('/checkout/'));
    await page.click('button[value="decline"]');
    await page.waitForURL((url) => url.origin === base && url.pathname === '/wallet');
    await page.waitForSelector('#order-status[data-state="failed"]', { timeout: 20_000 });
    expect(await page.textContent('#order-status')).toContain('insufficient_funds');
    expect(await page.getAttribute('li[data-segment="direct"]', 'data-balance')).toBe('500');

    const account = await accountOf(email);
    await showTab(page, 'buy');
    await page.dblclick(`li[data-product-id="${hints}"] button[data-method="chips"]`);
    await page.waitForSelector('#buy-message[data-kind="ok"]');
    await page.waitForFunction(`!document.querySelector('li[data-product-id="${hints}"] button[data-method="chips"]').disabled`);
    await new Promise((r) => setTimeout(r, 300));
    expect(await spends(account)).toBe(1);
    await showTab(page, 'wallet');
    expect(await page.getAttribute('li[data-segment="direct"]', 'data-balance')).toBe('400');
    expect(await page.textContent('li[data-origin="direct"]')).toContain('Hints: 5');

    await captureTabs(page, 'web');
    expect(problems).toEqual([]);
  });

  it('Telegram (init data from the launch hash, in Russian): buys a pack with stars through the platform emulator and sees it credited; the profile offers only e-mail linking', async () => {
    const userId = 700_001;
    const platform = stack.platform;
    if (!platform) throw new Error('the stack runs without the platform emulator');
    platform.control.createUser({ id: userId, firstName: 'Anna', started: true, languageCode: 'ru' });
    const user = JSON.stringify({ id: userId, first_name: 'Anna', language_code: 'ru' });
    const initData = signTelegramInitData(TELEGRAM_BOT_TOKEN, {
      query_id: 'AAHdF6IQAAAAAN0XohDhrOrc',
      user,
      auth_date: String(nowSeconds()),
    });
    const { page, problems } = await open(
      `${base}/wallet#tgWebAppData=${encodeURIComponent(initData)}&tgWebAppVersion=8.0&tgWebAppPlatform=android`,
      VIEWPORTS[0],
      'en-US',
    );
    await page.waitForSelector('#context[data-kind="telegram"]');
    expect(await page.getAttribute('html', 'lang')).toBe('ru');

    await showTab(page, 'buy');
    expect(await page.$(`li[data-product-id="${pack}"] button[data-method="card"]`)).toBeNull();
    // One language on the screen: the product's Russian words, counted words in Russian.
    expect(await page.textContent(`li[data-product-id="${pack}"] h3`)).toBe('Мешок фишек');
    expect(await page.textContent(`li[data-product-id="${pack}"] .description`)).toBe('Хватит на подсказки и дни без рекламы.');
    expect(await page.textContent(`li[data-product-id="${pack}"] .detail`)).toBe('500 фишек');
    expect(await page.textContent(`li[data-product-id="${pack}"] button[data-method="stars"]`)).toBe('Оплатить 50 звёзд');
    expect(await page.textContent(`li[data-product-id="${hints}"] button[data-method="chips"]`)).toBe('Купить за 100 фишек');
    expect(await page.textContent(`li[data-product-id="${hints}"] h3`)).toBe('Подсказки x5');
    await page.click(`li[data-product-id="${pack}"] button[data-method="stars"]`);
    const link = (await (await page.waitForSelector('#invoice-link')).getAttribute('href')) ?? '';
    expect(await page.textContent('#order-status')).toContain('ждём оплату');
    // The invoice the bot minted is in Russian too (its title and description come from the backend).
    const invoice = platform.control.calls('createInvoiceLink').at(-1)?.params;
    expect(invoice).toMatchObject({ title: 'Мешок фишек', description: 'Хватит на подсказки и дни без рекламы.' });
    platform.control.pay({ link, userId });
    await page.waitForSelector('#order-status[data-state="paid"]', { timeout: 30_000 });
    // And so is the bot's "payment received" message, product title included.
    await eventually(() => platform.control.messages({ chatId: userId, direction: 'from_bot' }).length > 0);
    expect(platform.control.messages({ chatId: userId, direction: 'from_bot' }).map((m) => m.message.text)).toEqual([
      expect.stringMatching(/^Оплата получена: Мешок фишек\. В кошелёк зачислено фишек: 500\. Заказ /),
    ]);
    await showTab(page, 'wallet');
    expect(await page.getAttribute('li[data-segment="telegram"]', 'data-balance')).toBe('500');
    expect(await attributes(page, '#segments li', 'data-segment')).toEqual(['telegram']);

    await showTab(page, 'profile');
    expect(await page.$('#providers')).toBeNull();
    expect(await page.textContent('#host-note')).toContain('e-mail');
    expect(await page.$('#email-form')).not.toBeNull();
    expect(await page.$('#sign-out')).toBeNull();
    expect(await page.evaluate<string[]>(UNNAMED_CONTROLS)).toEqual([]);

    await captureTabs(page, 'telegram');
    expect(problems).toEqual([]);
  });

  it('VK on iOS (signed launch parameters in the query): sees balances and the frozen context in words, no way to buy; the profile offers only e-mail linking', async () => {
    const { page, problems } = await open(
      `${base}/wallet?${vkLaunchParams(VK_APP_SECRET, '990001', 'mobile_iphone', nowSeconds())}`,
      VIEWPORTS[0],
      'en-US',
    );
    await page.waitForSelector('#context[data-kind="vk"][data-subtype="ios"]');
    expect(await page.getAttribute('html', 'lang')).toBe('ru');
    await page.waitForSelector('#frozen-notice');
    expect(await attributes(page, '#segments li', 'data-segment')).toEqual(['vk']);
    // A refund left this wallet in debt: the balance shows negative and the debt is said in words.
    const token = await page.evaluate<string | null>('localStorage.getItem("wallet.session")');
    const profile = await call(`${stack.api}/user/profile`, { headers: { authorization: `Bearer ${token ?? ''}` } });
    await grantChips(stack.db, (profile.body as { account_id: string }).account_id, 'vk', -700n);
    await showTab(page, 'wallet');
    expect(await page.getAttribute('li[data-segment="vk"]', 'data-balance')).toBe('-700');
    expect(await page.textContent('li[data-segment="vk"].debt')).toContain('Долг: 700 фишек');

    await showTab(page, 'buy');
    expect(await page.textContent('#frozen-notice')).toContain('покупки и траты недоступны');
    expect(await page.$$('button[data-method]')).toHaveLength(0);

    await showTab(page, 'profile');
    expect(await page.$('#providers')).toBeNull();
    expect(await page.$('#email-form')).not.toBeNull();

    // Keyboard: the tabs take arrow keys and the panel is the next stop.
    await page.focus('#tab-profile');
    await page.keyboard.press('ArrowLeft');
    await page.waitForSelector('#panel[data-tab="history"]');
    expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('tab-history');

    await captureTabs(page, 'vk');
    expect(problems).toEqual([]);
  });
});
