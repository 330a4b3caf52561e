import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { signTelegramInitData } from '@wordgame/testkit';
import { eventually } from './support/botlink-gateway.js';
import { TELEGRAM_BOT_TOKEN, VK_APP_SECRET } from './support/chain.js';
import { call } from './support/edge.js';
import { TEST_POLICY_LINKS } from './support/gateway-config.js';
import { nowSeconds, vkLaunchParams } from './support/launch-data.js';
import { startPaymentsStack, type PaymentsStack } from './support/payments-stack.js';
import {
  buildWalletPage,
  launchWalletChromium,
  SCREENSHOT_DIR,
  showTab,
  UNNAMED_CONTROLS,
  VIEWPORTS,
  watchPage,
} from './support/wallet-browser.js';

/** A Telegram theme as the clients send it (tgWebAppThemeParams, theme_changed): light, then dark. */
const LIGHT_THEME = {
  bg_color: '#ffffff',
  text_color: '#000000',
  hint_color: '#999999',
  link_color: '#2481cc',
  button_color: '#2481cc',
  button_text_color: '#ffffff',
  secondary_bg_color: '#efeff3',
};
const DARK_THEME = {
  bg_color: '#17212b',
  text_color: '#f5f5f5',
  hint_color: '#708499',
  link_color: '#6ab3f3',
  button_color: '#5288c1',
  button_text_color: '#ffffff',
  secondary_bg_color: '#232e3c',
};

/** `#rrggbb` as getComputedStyle writes it. */
const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

/** Where the framed page is served in the web clients' tests: a public https origin (routed to the gateway), as in production. */
const APP_ORIGIN = 'https://wallet.wordgame.example';

/**
 * Waits until `expression` is true in the page or frame. (page.waitForFunction polls by evaluating a
 * string inside the page, which the wallet's CSP forbids; this asks from outside, through the protocol.)
 */
const until = (target: Page | Frame, expression: string, timeoutMs = 15_000) =>
  eventually(async () => (await target.evaluate<boolean>(expression)) === true, timeoutMs);

/** What a Telegram client received from the page: the method and its parameters (eventData parsed; absent = none sent). */
interface TelegramCall {
  eventType: string;
  eventData?: unknown;
}

/**
 * Telegram's mobile clients as Telegram documents them (core.telegram.org/api/web-events): the page
 * calls `window.TelegramWebviewProxy.postEvent(eventType, eventData)`, eventData a JSON string or
 * nothing; the client answers through `window.Telegram.WebView.receiveEvent(eventType, eventData)`.
 * The proxy is there before any page script runs; it records each call with its raw eventData type.
 */
const TELEGRAM_MOBILE_CLIENT = `
  window.__telegramCalls = [];
  window.TelegramWebviewProxy = {
    postEvent(eventType, eventData) {
      window.__telegramCalls.push({ eventType, rawType: typeof eventData, eventData });
    },
  };`;

/**
 * Telegram's web client (web.telegram.org): the mini-app in an iframe posts
 * `JSON.stringify({eventType, eventData})` to its parent, and the client posts the same form into the
 * frame. The host page records what the frame posts; `window.answer(eventType, eventData)` answers.
 */
const TELEGRAM_WEB_CLIENT = (src: string) => `<!doctype html><html><body>
<iframe id="app" src="${src}" width="390" height="700"></iframe>
<script>
  window.fromApp = [];
  window.addEventListener('message', (event) => {
    if (event.source !== document.getElementById('app').contentWindow) return;
    window.fromApp.push({ origin: event.origin, data: event.data });
  });
  window.answer = (eventType, eventData) =>
    document.getElementById('app').contentWindow.postMessage(JSON.stringify({ eventType, eventData }), '*');
</script></body></html>`;

/**
 * VK's web client (vk.com): the mini-app in an iframe posts `{handler, params, type: 'vk-connect'}`
 * to its parent; the client posts events into the frame as `{type, data}` (a method's result carries
 * the request's `request_id`; VKWebAppUpdateConfig follows VKWebAppInit). `window.answer(type, data)` posts one.
 */
const VK_WEB_CLIENT = (src: string) => `<!doctype html><html><body>
<iframe id="app" src="${src}" width="390" height="700"></iframe>
<script>
  window.fromApp = [];
  window.addEventListener('message', (event) => {
    if (event.source !== document.getElementById('app').contentWindow) return;
    window.fromApp.push(event.data);
  });
  window.answer = (type, data) => document.getElementById('app').contentWindow.postMessage({ type, data }, '*');
</script></body></html>`;

/**
 * The wallet page inside each host as the host's own transport carries it, in Debian's Chromium on
 * the real stack (the page built from its sources, the gateway, the backend, PostgreSQL, the platform
 * emulator and the real bot): what the page sends is recorded as the client would receive it, and
 * the test answers as the client would, then watches the page react.
 */
describe('the wallet page speaks the Mini App bridges', () => {
  let stack: PaymentsStack;
  let browser: Browser;
  let walletDir: string;
  let base: string;
  let pack: string;
  let nextUser = 710_000;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    walletDir = mkdtempSync(join(tmpdir(), 'wallet-bridges-'));
    buildWalletPage(walletDir);
    stack = await startPaymentsStack({ bot: true, walletDir });
    base = stack.urls.httpUrl;
    const res = await call(`${base}/_gm/api/catalog/products`, {
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
    pack = (res.body as { product_id: string }).product_id;
    browser = await launchWalletChromium();
  }, 120_000);

  afterEach(async () => {
    // A page's routes may still be fetching (the wallet polls) when a test ends: let them go quietly
    // before closing, or the closed context fails the route callback after the test passed.
    for (const context of contexts.splice(0)) {
      for (const page of context.pages()) await page.unrouteAll({ behavior: 'ignoreErrors' });
      await context.close();
    }
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    rmSync(walletDir, { recursive: true, force: true });
  });

  /** A fresh Telegram user (started the bot, English) and the launch hash Telegram would open the page with. */
  function telegramLaunch(platform: string, theme: Record<string, string> = LIGHT_THEME): { userId: number; hash: string } {
    const userId = nextUser++;
    stack.platform?.control.createUser({ id: userId, firstName: 'Ann', started: true, languageCode: 'en' });
    const initData = signTelegramInitData(TELEGRAM_BOT_TOKEN, {
      query_id: 'AAHdF6IQAAAAAN0XohDhrOrc',
      user: JSON.stringify({ id: userId, first_name: 'Ann', language_code: 'en' }),
      auth_date: String(nowSeconds()),
    });
    const hash = new URLSearchParams({
      tgWebAppData: initData,
      tgWebAppVersion: '8.0',
      tgWebAppPlatform: platform,
      tgWebAppThemeParams: JSON.stringify(theme),
    }).toString();
    return { userId, hash };
  }

  async function newPage(init?: string): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: VIEWPORTS[0], locale: 'en-US', colorScheme: 'light' });
    contexts.push(context);
    context.setDefaultTimeout(15_000);
    if (init) await context.addInitScript({ content: init });
    const page = await context.newPage();
    return { page, problems: watchPage(page) };
  }

  /** The page in Telegram's mobile client (android), signed in. */
  async function inTelegramMobile(theme: Record<string, string> = LIGHT_THEME) {
    const { userId, hash } = telegramLaunch('android', theme);
    const { page, problems } = await newPage(TELEGRAM_MOBILE_CLIENT);
    await page.goto(`${base}/wallet#${hash}`);
    await page.waitForSelector('#context[data-kind="telegram"]');
    const calls = async (): Promise<TelegramCall[]> => {
      const raw = await page.evaluate<{ eventType: string; rawType: string; eventData?: string }[]>('window.__telegramCalls');
      return raw.map((c) => {
        if (c.rawType !== 'string' && c.rawType !== 'undefined') throw new Error(`eventData of ${c.eventType} is a ${c.rawType}`);
        return c.eventData === undefined
          ? { eventType: c.eventType }
          : { eventType: c.eventType, eventData: JSON.parse(c.eventData) as unknown };
      });
    };
    const receive = (eventType: string, eventData?: unknown) =>
      page.evaluate(
        eventData === undefined
          ? `window.Telegram.WebView.receiveEvent(${JSON.stringify(eventType)})`
          : `window.Telegram.WebView.receiveEvent(${JSON.stringify(eventType)}, ${JSON.stringify(eventData)})`,
      );
    const waitForCall = (eventType: string, eventData?: unknown) =>
      until(
        page,
        `window.__telegramCalls.some((c) => c.eventType === ${JSON.stringify(eventType)} && (${JSON.stringify(eventData === undefined)} || c.eventData === ${JSON.stringify(JSON.stringify(eventData))}))`,
      );
    return { userId, page, problems, calls, receive, waitForCall };
  }

  /** The order the status line follows, as the API answers it to the page's own session. */
  async function followedOrder(page: Page): Promise<{ order_id: string; state: string; invoice_link: string }> {
    const orderId = (await page.getAttribute('#order-status', 'data-order')) ?? '';
    const token = await page.evaluate<string | null>('localStorage.getItem("wallet.session")');
    const res = await call(`${stack.api}/user/wallet/orders/${orderId}`, { headers: { authorization: `Bearer ${token ?? ''}` } });
    return res.body as { order_id: string; state: string; invoice_link: string };
  }

  /** Presses the pack's stars price and answers the invoice link's slug once the page asked Telegram to open it. */
  async function buyWithStars(
    tg: Awaited<ReturnType<typeof inTelegramMobile>>,
    previous: string | null = null,
  ): Promise<{ link: string; slug: string }> {
    await showTab(tg.page, 'buy');
    await tg.page.click(`li[data-product-id="${pack}"] button[data-method="stars"]`);
    await until(tg.page, `(document.querySelector('#order-status')?.dataset.order ?? null) !== ${JSON.stringify(previous)}`);
    const order = await followedOrder(tg.page);
    const slug = /^https:\/\/t\.me\/\$([A-Za-z0-9_-]+)$/.exec(order.invoice_link)?.[1] ?? '';
    expect(slug).not.toBe('');
    await tg.waitForCall('web_app_open_invoice', { slug });
    return { link: order.invoice_link, slug };
  }

  /** APP_ORIGIN answered by the gateway: every request to it is fetched from the gateway, headers (the CSP) and all. */
  async function serveAppOrigin(page: Page): Promise<void> {
    await page.route(`${APP_ORIGIN}/**`, async (route) => {
      const url = new URL(route.request().url());
      await route.fulfill({ response: await route.fetch({ url: `${base}${url.pathname}${url.search}` }) });
    });
  }

  const style = (target: Page | Frame, selector: string, property: string) =>
    target.evaluate<string>(`getComputedStyle(document.querySelector(${JSON.stringify(selector)}))[${JSON.stringify(property)}]`);

  it('Telegram mobile: sends web_app_ready and web_app_expand on load (no parameters), as the client receives them', async () => {
    const tg = await inTelegramMobile();
    const calls = await tg.calls();
    expect(calls).toEqual(expect.arrayContaining([{ eventType: 'web_app_ready' }, { eventType: 'web_app_expand' }]));
    expect(calls.findIndex((c) => c.eventType === 'web_app_ready')).toBeLessThan(calls.findIndex((c) => c.eventType === 'web_app_expand'));
    expect(tg.problems).toEqual([]);
  });

  it('Telegram mobile: applies the launch theme (tgWebAppThemeParams), then a theme_changed from light to dark', async () => {
    const tg = await inTelegramMobile(LIGHT_THEME);
    expect(await style(tg.page, 'body', 'backgroundColor')).toBe(rgb(LIGHT_THEME.bg_color));
    expect(await style(tg.page, 'body', 'color')).toBe(rgb(LIGHT_THEME.text_color));
    expect(await tg.page.getAttribute('html', 'data-appearance')).toBe('light');
    await tg.receive('theme_changed', { theme_params: DARK_THEME });
    await until(tg.page, `getComputedStyle(document.body).backgroundColor === ${JSON.stringify(rgb(DARK_THEME.bg_color))}`);
    expect(await style(tg.page, 'body', 'color')).toBe(rgb(DARK_THEME.text_color));
    expect(await style(tg.page, '#tab-wallet', 'color')).toBe(rgb(DARK_THEME.text_color));
    expect(await tg.page.getAttribute('html', 'data-appearance')).toBe('dark');
    await showTab(tg.page, 'buy');
    expect(await style(tg.page, `li[data-product-id="${pack}"] button[data-method="stars"]`, 'backgroundColor')).toBe(
      rgb(DARK_THEME.button_color),
    );
    expect(await style(tg.page, 'html', 'colorScheme')).toBe('dark');
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await tg.page.screenshot({ path: join(SCREENSHOT_DIR, 'telegram-dark-buy-390x844.png'), fullPage: true });
    expect(tg.problems).toEqual([]);
  });

  it('Telegram mobile: a stars pack opens the invoice sheet (web_app_open_invoice with the link\u2019s slug); invoice_closed paid shows at once, and the credit still comes from the order', async () => {
    const tg = await inTelegramMobile();
    const { link, slug } = await buyWithStars(tg);
    // Inside Telegram the player is not handed a link that leaves the app.
    expect(await tg.page.$('#invoice-link')).toBeNull();
    expect(await tg.page.getAttribute('#invoice-outcome', 'data-status')).toBe('open');
    // An outcome for another invoice changes nothing.
    await tg.receive('invoice_closed', { slug: `${slug}x`, status: 'failed' });
    await tg.receive('invoice_closed', { slug, status: 'paid' });
    await tg.page.waitForSelector('#invoice-outcome[data-status="paid"]');
    expect(await tg.page.textContent('#invoice-outcome')).toBe('Payment made: we are confirming it, the chips arrive in a moment.');
    // The client's word is not the credit: the order is still pending until the platform pays it.
    expect(await tg.page.getAttribute('#order-status', 'data-state')).toBe('pending');
    expect((await followedOrder(tg.page)).state).toBe('pending');
    stack.platform?.control.pay({ link, userId: tg.userId });
    await tg.page.waitForSelector('#order-status[data-state="paid"]', { timeout: 30_000 });
    expect(await tg.page.textContent('#order-status')).toContain('500 chips were added');
    await showTab(tg.page, 'wallet');
    expect(await tg.page.getAttribute('li[data-segment="telegram"]', 'data-balance')).toBe('500');
    expect(tg.problems).toEqual([]);
  }, 90_000);

  it('Telegram mobile: invoice_closed cancelled returns to the shop, failed and pending say so; polling goes on until the order is final', async () => {
    const tg = await inTelegramMobile();
    const first = await buyWithStars(tg);
    await showTab(tg.page, 'wallet');
    await tg.receive('invoice_closed', { slug: first.slug, status: 'cancelled' });
    await tg.page.waitForSelector('#invoice-outcome[data-status="cancelled"]');
    await tg.page.waitForSelector(
      '#panel[data-tab="buy"]:not([aria-busy]) li[data-product-id] button[data-method="stars"]:not([disabled])',
    );
    expect(await tg.page.textContent('#invoice-outcome')).toContain('Payment cancelled');
    expect(await tg.page.getAttribute('#order-status', 'data-state')).toBe('pending');

    const failed = await buyWithStars(tg, (await followedOrder(tg.page)).order_id);
    await tg.receive('invoice_closed', { slug: failed.slug, status: 'failed' });
    await tg.page.waitForSelector('#invoice-outcome[data-status="failed"]');
    expect(await tg.page.textContent('#invoice-outcome')).toBe('The payment did not go through. Nothing was charged; try again.');

    const pending = await buyWithStars(tg, (await followedOrder(tg.page)).order_id);
    await tg.receive('invoice_closed', { slug: pending.slug, status: 'pending' });
    await tg.page.waitForSelector('#invoice-outcome[data-status="pending"]');
    expect(await tg.page.textContent('#invoice-outcome')).toBe('The payment is being processed; it shows here as soon as it is through.');
    // The page keeps asking the order: once the platform takes the payment, it shows the credit.
    stack.platform?.control.pay({ link: pending.link, userId: tg.userId });
    await tg.page.waitForSelector('#order-status[data-state="paid"]', { timeout: 30_000 });
    expect(tg.problems).toEqual([]);
  }, 90_000);

  it('Telegram mobile: shows the SettingsButton; settings_button_pressed opens settings with the privacy policy and terms, opened through web_app_open_link', async () => {
    const tg = await inTelegramMobile();
    await tg.waitForCall('web_app_setup_settings_button', { is_visible: true });
    expect(await tg.page.$('#settings')).toBeNull();
    await tg.receive('settings_button_pressed');
    await tg.page.waitForSelector('#settings');
    expect(await tg.page.isVisible('#panel')).toBe(false);
    expect(await tg.page.textContent('#settings h2')).toBe('Settings');
    const links = await tg.page.$$eval('#settings a', (items: { getAttribute(n: string): string | null; textContent: string | null }[]) =>
      items.map((a) => [a.textContent, a.getAttribute('href')]),
    );
    expect(links).toEqual([
      ['Privacy policy', TEST_POLICY_LINKS.PRIVACY_POLICY_URL],
      ['Terms of service', TEST_POLICY_LINKS.TERMS_OF_SERVICE_URL],
    ]);
    expect(await tg.page.evaluate<string[]>(UNNAMED_CONTROLS)).toEqual([]);
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await tg.page.screenshot({ path: join(SCREENSHOT_DIR, 'telegram-settings-390x844.png'), fullPage: true });
    await tg.page.click('#settings a[data-policy="terms"]');
    await tg.waitForCall('web_app_open_link', { url: TEST_POLICY_LINKS.TERMS_OF_SERVICE_URL });
    expect(tg.page.context().pages()).toHaveLength(1);
    expect(tg.problems).toEqual([]);
  });

  it('Telegram mobile: the BackButton is shown only while there is somewhere to go back to; back_button_pressed goes back', async () => {
    const tg = await inTelegramMobile();
    await tg.waitForCall('web_app_setup_settings_button', { is_visible: true });
    const backCalls = async () => (await tg.calls()).filter((c) => c.eventType === 'web_app_setup_back_button').map((c) => c.eventData);
    // On the main screen there is nowhere to go back to: never shown.
    expect(await backCalls()).toEqual([]);
    await tg.receive('settings_button_pressed');
    await tg.page.waitForSelector('#settings');
    await tg.waitForCall('web_app_setup_back_button', { is_visible: true });
    await tg.receive('back_button_pressed');
    await tg.page.waitForSelector('#settings', { state: 'detached' });
    await tg.page.waitForSelector('#panel[data-tab="wallet"]', { state: 'visible' });
    await tg.waitForCall('web_app_setup_back_button', { is_visible: false });
    expect(await backCalls()).toEqual([{ is_visible: true }, { is_visible: false }]);
    expect(tg.problems).toEqual([]);
  });

  it('Telegram web client (the page framed by web.telegram.org): posts web_app_ready and web_app_expand to the parent as JSON strings; a theme_changed posted into the frame applies', async () => {
    const { hash } = telegramLaunch('weba', LIGHT_THEME);
    const { page, problems } = await newPage();
    const appUrl = `${APP_ORIGIN}/wallet#${hash}`;
    await serveAppOrigin(page);
    await page.route('https://web.telegram.org/k/', (route) =>
      route.fulfill({ contentType: 'text/html', body: TELEGRAM_WEB_CLIENT(appUrl) }),
    );
    await page.goto('https://web.telegram.org/k/');
    const frame = await (await page.waitForSelector('#app')).contentFrame();
    if (!frame) throw new Error('no frame');
    await frame.waitForSelector('#context[data-kind="telegram"]');
    await until(page, `window.fromApp.length >= 2`);
    const posted = await page.evaluate<{ origin: string; data: unknown }[]>('window.fromApp');
    for (const p of posted) expect([p.origin, typeof p.data]).toEqual([APP_ORIGIN, 'string']);
    const events = posted.map((p) => JSON.parse(p.data as string) as TelegramCall);
    expect(events).toEqual(expect.arrayContaining([{ eventType: 'web_app_ready' }, { eventType: 'web_app_expand' }]));
    expect(await style(frame, 'body', 'backgroundColor')).toBe(rgb(LIGHT_THEME.bg_color));
    await page.evaluate(`window.answer('theme_changed', ${JSON.stringify({ theme_params: DARK_THEME })})`);
    await until(frame, `getComputedStyle(document.body).backgroundColor === ${JSON.stringify(rgb(DARK_THEME.bg_color))}`);
    expect(await frame.getAttribute('html', 'data-appearance')).toBe('dark');
    expect(problems).toEqual([]);
  });

  it('VK web client (the page framed by vk.com): posts VKWebAppInit to the parent; the appearance of the VKWebAppUpdateConfig that follows applies', async () => {
    const { page, problems } = await newPage();
    await serveAppOrigin(page);
    const appUrl = `${APP_ORIGIN}/wallet?${vkLaunchParams(VK_APP_SECRET, '990101', 'desktop_web', nowSeconds())}`;
    await page.route('https://vk.com/app51234567', (route) => route.fulfill({ contentType: 'text/html', body: VK_WEB_CLIENT(appUrl) }));
    await page.goto('https://vk.com/app51234567');
    const frame = await (await page.waitForSelector('#app')).contentFrame();
    if (!frame) throw new Error('no frame');
    await until(page, `window.fromApp.some((m) => m && m.handler === 'VKWebAppInit')`);
    const init = (await page.evaluate<{ handler: string; type: string; params: { request_id?: unknown } }[]>('window.fromApp')).find(
      (m) => m.handler === 'VKWebAppInit',
    );
    expect(init).toMatchObject({ handler: 'VKWebAppInit', type: 'vk-connect', params: expect.any(Object) as unknown });
    await frame.waitForSelector('#context[data-kind="vk"][data-subtype="web"]');
    expect(await style(frame, 'body', 'backgroundColor')).toBe(rgb('#f6f7f9'));
    await page.evaluate(
      `window.answer('VKWebAppInitResult', { result: true, request_id: ${JSON.stringify(init?.params.request_id ?? null)} })`,
    );
    await page.evaluate(
      `window.answer('VKWebAppUpdateConfig', { app_id: '51234567', appearance: 'dark', scheme: 'vkcom_dark', api_host: 'api.vk.com' })`,
    );
    await until(frame, `getComputedStyle(document.body).backgroundColor === ${JSON.stringify(rgb('#15171b'))}`);
    expect(await frame.getAttribute('html', 'data-appearance')).toBe('dark');
    // A later change of the client's scheme (here named by `scheme` alone) applies too.
    await page.evaluate(`window.answer('VKWebAppUpdateConfig', { app_id: '51234567', scheme: 'vkcom_light' })`);
    await until(frame, `document.documentElement.dataset.appearance === 'light'`);
    expect(await style(frame, 'body', 'backgroundColor')).toBe(rgb('#f6f7f9'));
    expect(problems).toEqual([]);
  });

  it('outside both hosts: nothing is posted and no bridge is set up; the page works as today, the policy links at its foot', async () => {
    const { page, problems } = await newPage(`
      window.__posted = [];
      const post = window.postMessage.bind(window);
      window.postMessage = (...args) => { window.__posted.push(args[0]); return post(...args); };`);
    await page.goto(`${base}/wallet`);
    await page.waitForSelector('#signin-form');
    await page.check('input[name=mode][value=signup]');
    await page.fill('#signin-email', 'bridges.web@example.com');
    await page.fill('#signin-password', 'wallet password 1');
    await page.press('#signin-password', 'Enter');
    await page.waitForSelector('#context[data-kind="direct"]');
    await showTab(page, 'buy');
    expect(await page.evaluate<unknown[]>('window.__posted')).toEqual([]);
    expect(await page.evaluate<string>('typeof window.Telegram')).toBe('undefined');
    expect(await page.getAttribute('html', 'data-appearance')).toBeNull();
    expect(
      await page.$$eval('#policies a', (items: { getAttribute(n: string): string | null }[]) => items.map((a) => a.getAttribute('href'))),
    ).toEqual([TEST_POLICY_LINKS.PRIVACY_POLICY_URL, TEST_POLICY_LINKS.TERMS_OF_SERVICE_URL]);
    expect(problems).toEqual([]);
  });
});
