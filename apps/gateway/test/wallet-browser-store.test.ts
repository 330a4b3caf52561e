import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { signTelegramInitData } from '@wordgame/testkit';
import { TELEGRAM_BOT_TOKEN } from './support/chain.js';
import { nowSeconds } from './support/launch-data.js';
import { createProduct, startPaymentsStack, type PaymentsStack } from './support/payments-stack.js';
import { buildWalletPage, launchWalletChromium, showTab, UNNAMED_CONTROLS, VIEWPORTS, watchPage } from './support/wallet-browser.js';

const SECRET = 'promo-secret-for-the-wallet-browser-store-test-0123';

/**
 * The store features as a Telegram player sees them in the wallet page (headless Chromium, the real
 * gateway, backend process and PostgreSQL): a time-limited offer shows the time it has left by the
 * server's clock and an offer that has not started is not shown; a promo code typed into the
 * balance tab's "Redeem a code" field is granted once into the Telegram wallet, and a used-up code
 * is refused in the same words as an unknown one.
 */
describe('the wallet page store features (headless Chromium, real stack)', () => {
  let stack: PaymentsStack;
  let browser: Browser;
  let walletDir: string;

  beforeAll(async () => {
    walletDir = mkdtempSync(join(tmpdir(), 'wallet-web-store-'));
    buildWalletPage(walletDir);
    stack = await startPaymentsStack({ walletDir, backendEnv: { PROMO_CODE_SECRET: SECRET } });
    browser = await launchWalletChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    rmSync(walletDir, { recursive: true, force: true });
  });

  let users = 0;
  /** A Telegram player's wallet page, open on the balance tab. */
  const openAsTelegramPlayer = async (): Promise<{ page: Page; problems: string[]; close(): Promise<void> }> => {
    users += 1;
    const user = JSON.stringify({ id: 700_400 + users, first_name: 'Sam', language_code: 'en' });
    const initData = signTelegramInitData(TELEGRAM_BOT_TOKEN, {
      query_id: `AAHdF6IQAAAAAN0XohDhrS${users}`,
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
    return { page, problems, close: () => context.close() };
  };

  it('the buy tab shows the time an offer has left and hides one that has not started; a product without a window shows none', async () => {
    const offer = await createProduct(stack, 'Weekend offer', 10n, { xtr: 5n });
    const later = await createProduct(stack, 'Next week offer', 10n, { xtr: 5n });
    const plain = await createProduct(stack, 'Plain pack', 10n, { xtr: 5n });
    // Three days and twelve and a half hours left: the words name days and hours only, so the page may
    // load at any moment of the next half hour and still read the same.
    await stack.db.query(
      `update catalog_products set available_from = now() - interval '1 day',
         available_until = now() + interval '3 days 12 hours 30 minutes' where id = $1`,
      [offer],
    );
    await stack.db.query(`update catalog_products set available_from = now() + interval '7 days' where id = $1`, [later]);

    const { page, problems, close } = await openAsTelegramPlayer();
    await showTab(page, 'buy');
    await page.waitForSelector(`li[data-product-id="${plain}"]`);
    expect(await page.textContent(`li[data-product-id="${offer}"] .offer-ends`)).toBe('Ends in 3 days 12 h');
    expect(await page.$(`li[data-product-id="${plain}"] .offer-ends`)).toBeNull();
    expect(await page.$(`li[data-product-id="${later}"]`)).toBeNull();
    expect(await page.$(`li[data-product-id="${offer}"] button[data-method="stars"]`)).not.toBeNull();
    expect(problems).toEqual([]);
    await close();
  });

  it('redeems a code from the balance tab into the Telegram wallet once; the used-up code reads like an unknown one', async () => {
    const code = 'WALLETPAGEGIFT25';
    await stack.db.query(
      `insert into promo_codes (code_hash, prefix, chips, hints, max_redemptions, hosts, valid_from, valid_until, created_at)
       values ($1, $2, 25, 2, 1, array['telegram'], now() - interval '1 hour', now() + interval '1 day', now())`,
      [createHmac('sha256', SECRET).update(code).digest(), code.slice(0, 4)],
    );

    const first = await openAsTelegramPlayer();
    await first.page.fill('#redeem-code', 'walletpage-gift-25');
    await first.page.click('#redeem-submit');
    await first.page.waitForSelector('#redeem-message[data-kind="ok"]');
    expect(await first.page.textContent('#redeem-message')).toBe('Code redeemed: 25 chips, 2 hints.');
    expect(await first.page.getAttribute('li[data-segment="telegram"]', 'data-balance')).toBe('25');
    expect(await first.page.evaluate<string[]>(UNNAMED_CONTROLS)).toEqual([]);
    expect(first.problems).toEqual([]);
    await first.close();

    const second = await openAsTelegramPlayer();
    await second.page.fill('#redeem-code', code);
    await second.page.click('#redeem-submit');
    await second.page.waitForSelector('#redeem-message[data-kind="error"]');
    const usedUp = await second.page.textContent('#redeem-message');
    expect(usedUp).toBe('This code cannot be redeemed. Check it and try again.');
    await second.page.fill('#redeem-code', 'NO-SUCH-CODE-HERE');
    // The same words again: wait for the field's request to be answered and the button to come back, then read the message.
    const answered = second.page.waitForResponse((r) => r.url().endsWith('/user/codes/redeem'));
    await second.page.click('#redeem-submit');
    expect((await answered).status()).toBe(409);
    await second.page.waitForSelector('#redeem-submit:not([disabled])');
    expect(await second.page.textContent('#redeem-message')).toBe(usedUp);
    expect(second.problems).toEqual([]);
    await second.close();

    const { rows } = await stack.db.query<{ n: string }>(
      `select count(*)::text as n from ledger_operations where kind = 'code_grant' and segment = 'telegram' and chips_delta = 25`,
    );
    expect(rows[0]?.n).toBe('1');
  });
});
