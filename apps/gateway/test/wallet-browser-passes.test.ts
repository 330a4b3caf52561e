import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { signTelegramInitData } from '@wordgame/testkit';
import { eventually } from './support/botlink-gateway.js';
import { TELEGRAM_BOT_TOKEN } from './support/chain.js';
import { call } from './support/edge.js';
import { nowSeconds } from './support/launch-data.js';
import {
  bearer,
  createProduct,
  startPaymentsStack,
  telegramCustomer,
  type OrderBody,
  type PaymentsStack,
} from './support/payments-stack.js';
import { buildWalletPage, launchWalletChromium, showTab, UNNAMED_CONTROLS, VIEWPORTS, watchPage } from './support/wallet-browser.js';

/**
 * The wallet page's monthly pass in Chromium against the real stack (the bot and the platform
 * emulator): a pass paid in Telegram shows on the balance tab with its next renewal, and the
 * player cancels and re-enables it there, the platform's subscription following each press.
 */
describe('the wallet page shows and edits a monthly pass (headless Chromium, real stack)', () => {
  let stack: PaymentsStack;
  let browser: Browser;
  let walletDir: string;

  beforeAll(async () => {
    walletDir = mkdtempSync(join(tmpdir(), 'wallet-web-pass-'));
    buildWalletPage(walletDir);
    stack = await startPaymentsStack({ bot: true, walletDir });
    browser = await launchWalletChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    rmSync(walletDir, { recursive: true, force: true });
  });

  it('a paid pass on the balance tab: renews on its date; cancel and re-enable from the page', async () => {
    const platform = stack.platform;
    if (!platform) throw new Error('the stack runs without the platform emulator');
    const userId = 700_301;
    platform.control.createUser({ id: userId, firstName: 'Pat', started: true, languageCode: 'en' });
    const pass = await createProduct(stack, 'Monthly pass', 10n, { xtr: 100n });
    await stack.db.query('update catalog_products set subscription_period = 2592000 where id = $1', [pass]);
    const customer = await telegramCustomer(stack.api, userId);
    const created = await call(`${stack.api}/user/wallet/orders`, {
      method: 'POST',
      headers: bearer(customer),
      json: { product_id: pass, rail: 'stars' },
    });
    const order = created.body as OrderBody;
    const { preCheckoutQueryId } = platform.control.pay({ link: order.invoice_link ?? '', userId });
    await eventually(() => platform.control.preCheckout(preCheckoutQueryId)?.status === 'approved', 20_000);
    const charge = platform.control.preCheckout(preCheckoutQueryId)?.telegramPaymentChargeId ?? '';
    await eventually(async () => (await stack.db.query('select 1 from star_subscriptions')).rowCount === 1, 20_000);

    const user = JSON.stringify({ id: userId, first_name: 'Pat', language_code: 'en' });
    const initData = signTelegramInitData(TELEGRAM_BOT_TOKEN, {
      query_id: 'AAHdF6IQAAAAAN0XohDhrOrd',
      user,
      auth_date: String(nowSeconds()),
    });
    const context = await browser.newContext({ viewport: VIEWPORTS[0], locale: 'en-US' });
    const page = await context.newPage();
    const problems = watchPage(page);
    await page.goto(
      `${stack.urls.httpUrl}/wallet#tgWebAppData=${encodeURIComponent(initData)}&tgWebAppVersion=8.0&tgWebAppPlatform=android`,
    );
    await page.waitForSelector('#context[data-kind="telegram"]');
    await showTab(page, 'buy');
    expect(await page.textContent(`li[data-product-id="${pass}"] .pass-tag`)).toBe('Monthly pass: renews every 30 days until you cancel');
    await showTab(page, 'wallet');
    await page.waitForSelector('#passes li[data-state="active"]');
    const expires = platform.control.subscription(charge)?.expiresAt ?? 0;
    const date = new Intl.DateTimeFormat('en', { dateStyle: 'long' }).format(new Date(expires * 1000));
    expect(await page.textContent('#passes .pass-status')).toBe(`Renews on ${date}`);
    expect(await page.textContent('#passes .label')).toBe('Monthly pass');
    expect(await page.evaluate<string[]>(UNNAMED_CONTROLS)).toEqual([]);

    await page.click('#passes button[data-action="cancel"]');
    await page.waitForSelector('#passes li[data-state="cancelled"]');
    expect(await page.textContent('#passes .pass-status')).toBe(`Cancelled: active until ${date}`);
    expect(platform.control.subscription(charge)?.canceled).toBe(true);

    await page.click('#passes button[data-action="enable"]');
    await page.waitForSelector('#passes li[data-state="active"]');
    expect(platform.control.subscription(charge)?.canceled).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  });
});
