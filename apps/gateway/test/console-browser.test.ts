import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  createOperator,
  DISCUSSION_CHAT,
  EXPORT_CAP,
  launchChromium,
  OPERATOR_PASSWORD,
  paidCardOrder,
  startConsoleStack,
  takenNotCredited,
  type ConsoleStack,
} from './console-support.js';

const DAY = 86_400_000;
/** The part of a DOM element the page evaluations use (the test project has no DOM typings). */
type El = { getAttribute(name: string): string | null };

describe('operator console in headless Chromium (gateway + backend + bot + emulators)', () => {
  let stack: ConsoleStack;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let account: string;
  let product: string;
  let orderId: string;

  beforeAll(async () => {
    stack = await startConsoleStack({ bot: true });
    expect(createOperator(stack.db.url, 'ops@example.com', 'viewer,refunder,catalog_editor,moderator').status).toBe(0);
    account =
      (await stack.db.query<{ id: string }>(`insert into accounts (display_name) values ('Payer <b>one</b>') returning id`)).rows[0]?.id ??
      '';
    product =
      (await stack.db.query<{ id: string }>(`insert into catalog_products (title) values ('Chip pack') returning id`)).rows[0]?.id ?? '';
    const now = Date.now();
    // 70 direct-wallet rows over the last 20 days, spends without a rail, and older rows outside the default range.
    for (let i = 0; i < 70; i += 1) {
      const at = new Date(now - (i % 20) * DAY - i * 1000).toISOString();
      await stack.db.query(
        `insert into ledger_operations (account_id, kind, segment, chips_delta, note, created_at) values ($1, $2, 'direct', $3, $4, $5)`,
        [account, i % 3 === 0 ? 'spend' : 'grant', String(i % 3 === 0 ? -(i + 1) : i + 10), i === 5 ? '=cmd|"/c calc"!A0' : `row ${i}`, at],
      );
    }
    await stack.db.query(
      `insert into ledger_operations (account_id, kind, segment, chips_delta, created_at) values ($1, 'grant', 'vk', 5, now()), ($1, 'grant', 'direct', 999, now() - interval '45 days')`,
      [account],
    );
    orderId = await paidCardOrder(stack, account, product, 49_900n, 500n, new Date(now - 2 * DAY));
    browser = await launchChromium();
    context = await browser.newContext();
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const base = () => stack.urls.httpUrl;
  const filterSql = `account_id = $1 and (segment = 'direct' or benefit_origin = 'direct') and created_at >= date_trunc('day', now(), 'UTC') - interval '29 days'`;
  const rowIds = async () => page.$$eval('#rows tr[data-id]', (rows: El[]) => rows.map((r) => r.getAttribute('data-id')));

  it('the sign-in page asks for nothing that answers 4xx (no favicon 404)', async () => {
    const fresh = await browser.newContext();
    const probe = await fresh.newPage();
    const failed: string[] = [];
    probe.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    probe.on('requestfailed', (r) => failed.push(`failed ${r.url()}`));
    // The icon is fetched by the browser itself (no page request event): its 404 shows only as a console error.
    probe.on('console', (m) => {
      if (m.type() === 'error') failed.push(`console: ${m.text()}`);
    });
    await probe.goto(`${base()}/_gm/login`, { waitUntil: 'load' });
    // Chromium asks for the icon after the load event; give it the time to.
    await probe.waitForTimeout(1_000);
    expect(failed).toEqual([]);
    await fresh.close();
  });

  it('signs in from the redirect and lands on the page asked for', async () => {
    const res = await page.goto(`${base()}/_gm/ledger`);
    expect(new URL(page.url()).pathname).toBe('/_gm/login');
    expect(res?.status()).toBe(200);
    await page.fill('input[name=login]', 'ops@example.com');
    await page.fill('input[name=password]', 'wrong password, surely');
    await page.click('button[type=submit]');
    expect(await page.textContent('#error')).toContain('Wrong login or password');
    await page.fill('input[name=login]', 'ops@example.com');
    await page.fill('input[name=password]', OPERATOR_PASSWORD);
    await page.click('button[type=submit]');
    expect(new URL(page.url()).pathname).toBe('/_gm/ledger');
    const cookie = (await context.cookies()).find((c) => c.name === 'gm_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/_gm', secure: false });
    expect(await page.textContent('main')).toContain('UTC');
  });

  it('filters by wallet and account; totals per currency equal the database over the whole filter; page 2 continues', async () => {
    await page.selectOption('select[name=wallet]', 'direct');
    await page.fill('input[name=account]', account);
    await page.click('#filter button[type=submit]');
    const url = new URL(page.url());
    expect(url.searchParams.get('wallet')).toBe('direct');
    expect(url.searchParams.get('account')).toBe(account);

    const pairs = await page.$$eval('#totals tr[data-currency]', (rows: El[]) =>
      rows.map((r): [string, string] => [r.getAttribute('data-currency') ?? '', r.getAttribute('data-minor') ?? '']),
    );
    const totals = Object.fromEntries(pairs);
    const sums = (
      await stack.db.query<{ chips: string; rub: string; n: string }>(
        `select sum(chips_delta)::text as chips, (sum(money_minor) filter (where currency = 'RUB'))::text as rub, count(*)::text as n from ledger_operations where ${filterSql}`,
        [account],
      )
    ).rows[0];
    expect(totals).toEqual({ CHIPS: sums?.chips, RUB: sums?.rub });
    expect(await page.getAttribute('#matched', 'data-matched')).toBe(sums?.n);
    expect(await page.$$eval('svg[data-chart]', (s: El[]) => s.map((e) => e.getAttribute('data-chart')))).toEqual(['CHIPS', 'RUB']);
    // The charts say what they show: a summary as the accessible name, a title per day, dated axis; the page is kept for a look.
    expect(await page.$$eval('svg[data-chart]', (s: El[]) => s.map((e) => e.getAttribute('aria-label') ?? ''))).toEqual([
      expect.stringMatching(/^Daily totals in CHIPS, \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2} \(UTC\): total -?\d+ CHIPS/),
      expect.stringMatching(/^Daily totals in RUB, /),
    ]);
    expect(await page.locator('svg[data-chart=CHIPS] g.bar > title').count()).toBe(30);
    expect(await page.locator('svg[data-chart=CHIPS] .tick-date').count()).toBeGreaterThanOrEqual(2);
    await page.screenshot({ path: `${import.meta.dirname}/../../../.reports/console-ledger.png`, fullPage: true });

    const expected = (
      await stack.db.query<{ id: string }>(`select id::text from ledger_operations where ${filterSql} order by created_at desc, id desc`, [
        account,
      ])
    ).rows.map((r) => r.id);
    const first = await rowIds();
    expect(first).toEqual(expected.slice(0, 50));
    await page.click('#next');
    expect(new URL(page.url()).searchParams.get('wallet')).toBe('direct');
    expect(await rowIds()).toEqual(expected.slice(50, 100));
    expect(await page.$('#next')).toBeNull();
    await page.click('#first');
    expect(await rowIds()).toEqual(expected.slice(0, 50));
  });

  it('filters by rail from a list like wallet and kind, and counts in words: 1 operation matches', async () => {
    await page.goto(`${base()}/_gm/ledger`);
    expect(await page.$('input[name=rail]')).toBeNull();
    expect(await page.$$eval('select[name=rail] option', (o: El[]) => o.map((x) => x.getAttribute('value')))).toEqual([
      '',
      'telegram_stars',
      'yookassa',
    ]);
    await page.fill('input[name=account]', account);
    await page.selectOption('select[name=rail]', 'yookassa');
    await page.click('#filter button[type=submit]');
    expect(new URL(page.url()).searchParams.get('rail')).toBe('yookassa');
    expect(await page.textContent('#matched')).toBe('1 operation matches.');
    await page.selectOption('select[name=rail]', '');
    await page.click('#filter button[type=submit]');
    const n = (await page.getAttribute('#matched', 'data-matched')) ?? '';
    expect(Number(n)).toBeGreaterThan(1);
    expect(await page.textContent('#matched')).toBe(`${n} operations match.`);
    const refused = await page.goto(`${base()}/_gm/ledger?rail=paypal`);
    expect(refused?.status()).toBe(400);
    await page.goto(`${base()}/_gm/ledger?wallet=direct&account=${account}`);
  });

  it('exports the same filter as CSV: streamed, newest first, capped, times in UTC, formulas defused', async () => {
    const href = await page.getAttribute('#export', 'href');
    expect(await page.textContent('main')).toContain(`at most ${EXPORT_CAP} rows`);
    const res = await context.request.get(`${base()}${href ?? ''}`);
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toContain('text/csv');
    const lines = (await res.text()).trimEnd().split('\r\n');
    expect(lines[0]).toContain('created_at_utc');
    const expected = (
      await stack.db.query<{ id: string }>(
        `select id::text from ledger_operations where ${filterSql} order by created_at desc, id desc limit ${EXPORT_CAP}`,
        [account],
      )
    ).rows.map((r) => r.id);
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(expected);
    expect(lines.slice(1).every((l) => /^\d+,\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z,/.test(l))).toBe(true);
    const formula = lines.find((l) => l.includes('calc'));
    expect(formula).toContain(`"'=cmd|""/c calc""!A0"`);
  });

  it('refunds a funded row: confirm, provider first, outcome, and back to the same filtered view', async () => {
    await page.goto(`${base()}/_gm/ledger?wallet=direct&kind=purchase&account=${account}`);
    const view = page.url();
    await page.click(`#rows tr:has-text("${orderId}") a.refund`);
    expect(new URL(page.url()).pathname).toBe('/_gm/ledger/refund');
    expect(await page.textContent('#order')).toBe(orderId);
    const fact = async (name: string) => (await page.textContent(`#facts tr[data-fact="${name}"] td`))?.trim();
    expect(await fact('amount')).toBe('499.00 RUB');
    expect(await fact('currency')).toBe('RUB');
    expect(await fact('rail')).toBe('card (yookassa)');
    expect(await fact('player')).toBe(`account ${account}`);
    expect(await fact('order')).toBe(`${orderId} (now paid, 500 chips)`);
    expect(await page.textContent('#confirm')).toBe('Refund 499.00 RUB');
    // Nothing has moved yet: the page is only the question.
    expect((await stack.db.query(`select 1 from ledger_operations where order_id = $1 and kind = 'refund'`, [orderId])).rowCount).toBe(0);
    await page.click('#confirm');
    expect(await page.getAttribute('#outcome', 'data-outcome')).toBe('succeeded');
    await page.click('#back');
    expect(new URL(view).searchParams.get('from')).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(page.url()).toBe(view);
    expect(await page.textContent(`#rows tr:has-text("${orderId}")`)).toContain('refunded');
    expect(await page.$(`#rows tr:has-text("${orderId}") a.refund`)).toBeNull();
    const refunds = await stack.db.query(`select 1 from ledger_operations where order_id = $1 and kind = 'refund'`, [orderId]);
    expect(refunds.rowCount).toBe(1);
    expect(stack.provider.control.payments().find((p) => p.payment.metadata?.['order_id'] === orderId)?.refunds).toHaveLength(1);
  });

  it('rejects a bad product title with the reason next to the field, then saves the fixed one', async () => {
    await page.goto(`${base()}/_gm/catalog/new`);
    await page.fill('input[name=title]', 'Tom & Jerry');
    await page.fill('input[name=title_ru]', 'Том и Джерри');
    await page.fill('input[name=atom_hints]', '5');
    await page.fill('input[name=price_chips]', '50');
    const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/_gm/catalog/save')), page.click('#save')]);
    expect(res.status()).toBe(400);
    expect(await page.textContent('#title-error')).toMatch(/title/i);
    expect(await page.inputValue('input[name=title]')).toBe('Tom & Jerry');
    expect((await stack.db.query(`select 1 from catalog_products where title like 'Tom%'`)).rowCount).toBe(0);
    await page.fill('input[name=title]', 'Tom and Jerry hints');
    await page.click('#save');
    expect(new URL(page.url()).pathname).toBe('/_gm/catalog');
    expect(await page.textContent('#products')).toContain('Tom and Jerry hints');

    await page.goto(`${base()}/_gm/catalog/${product}`);
    await page.fill('input[name=title]', 'Pack "deluxe"');
    await page.fill('input[name=title_ru]', 'Набор');
    await page.click('#save');
    expect(await page.textContent('#title-error')).toMatch(/title/i);
    expect((await stack.db.query<{ title: string }>(`select title from catalog_products where id = $1`, [product])).rows[0]?.title).toBe(
      'Chip pack',
    );
  });

  it('refuses a card price in a currency the card shop cannot settle with the reason next to the currency field, then saves it in RUB', async () => {
    await page.goto(`${base()}/_gm/catalog/new`);
    await page.fill('input[name=title]', 'Pound pack');
    await page.fill('input[name=title_ru]', 'Фунтовый набор');
    await page.fill('input[name=atom_chips]', '100');
    await page.fill('input[name=price_provider]', '499');
    await page.fill('input[name=price_provider_currency]', 'gbp');
    const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/_gm/catalog/save')), page.click('#save')]);
    expect(res.status()).toBe(400);
    expect(await page.textContent('label:has(input[name=price_provider_currency]) + #currency-error')).toBe(
      'a card price cannot be in GBP: the card shops settle only RUB',
    );
    expect(await page.$('#prices-error')).toBeNull();
    expect(await page.inputValue('input[name=price_provider_currency]')).toBe('GBP');
    expect(await page.inputValue('input[name=title]')).toBe('Pound pack');
    expect((await stack.db.query(`select 1 from catalog_products where title = 'Pound pack'`)).rowCount).toBe(0);
    await page.fill('input[name=price_provider_currency]', 'RUB');
    await page.click('#save');
    expect(new URL(page.url()).pathname).toBe('/_gm/catalog');
    expect(await page.textContent('#products')).toContain('Pound pack');
    const saved = await stack.db.query<{ currency: string }>(
      `select p.currency from catalog_prices p join catalog_products c on c.id = p.product_id where c.title = 'Pound pack'`,
    );
    expect(saved.rows).toEqual([{ currency: 'RUB' }]);
  });

  it('edits the words of both languages: the title rule holds for each, a description may not repeat its title, a Russian title is needed', async () => {
    await page.goto(`${base()}/_gm/catalog/new`);
    await page.fill('input[name=title]', 'Bag of chips');
    await page.fill('input[name=description]', 'The better deal for regular players.');
    await page.fill('input[name=atom_chips]', '500');
    await page.fill('input[name=price_xtr]', '200');
    await page.click('#save');
    expect(await page.textContent('#title_ru-error')).toContain('Russian title');
    await page.fill('input[name=title_ru]', 'Мешок <фишек>');
    await page.click('#save');
    expect(await page.textContent('#title_ru-error')).toMatch(/^ru title: /);
    expect(await page.$('#title-error')).toBeNull();
    await page.fill('input[name=title_ru]', 'Мешок фишек');
    await page.fill('input[name=description_ru]', 'мешок фишек');
    await page.click('#save');
    expect(await page.textContent('#description_ru-error')).toContain('must not repeat the title');
    expect(await page.inputValue('input[name=description]')).toBe('The better deal for regular players.');
    await page.fill('input[name=description_ru]', 'Выгоднее для тех, кто играет часто.');
    await page.click('#save');
    expect(new URL(page.url()).pathname).toBe('/_gm/catalog');
    const saved =
      (await stack.db.query<{ id: string }>(`select id::text from catalog_products where title = 'Bag of chips'`)).rows[0]?.id ?? '';
    const texts = await stack.db.query<{ locale: string; title: string; description: string }>(
      `select locale, title, description from catalog_product_texts where product_id = $1 order by locale`,
      [saved],
    );
    expect(texts.rows).toEqual([
      { locale: 'en', title: 'Bag of chips', description: 'The better deal for regular players.' },
      { locale: 'ru', title: 'Мешок фишек', description: 'Выгоднее для тех, кто играет часто.' },
    ]);
    expect(await page.textContent(`#products tr[data-id="${saved}"] td.title-ru`)).toBe('Мешок фишек');
    // The editor shows both languages again for the next edit.
    await page.goto(`${base()}/_gm/catalog/${saved}`);
    expect(await page.inputValue('input[name=title_ru]')).toBe('Мешок фишек');
    expect(await page.inputValue('input[name=description_ru]')).toBe('Выгоднее для тех, кто играет часто.');
  });

  it('the reconciliation table fits a 1280 px window with long ids in every column', async () => {
    const run =
      (
        await stack.db.query<{ id: string }>(
          `insert into reconciliation_runs (trigger, window_from, window_to, started_at, finished_at, outcome, rails)
           values ('cli', now() - interval '1 day', now(), now(), now(), 'mismatches', 'card,stars') returning id::text`,
        )
      ).rows[0]?.id ?? '';
    for (let i = 0; i < 3; i += 1)
      await stack.db.query(
        `insert into reconciliation_mismatches (run_id, kind, rail, provider, order_id, payment_ref, refund_ref, payer_ref, ledger_amount, ledger_currency, provider_amount, provider_currency, occurred_at)
         values ($1, 'taken_not_credited', 'stars', 'telegram_stars', $2, $3, $4, $5, 49900, 'RUB', 4990000000, 'RUB', now())`,
        [
          run,
          crypto.randomUUID(),
          `stxAbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz-${i}`,
          `refund-${'0123456789abcdef'.repeat(3)}-${i}`,
          '7000000000012345',
        ],
      );
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${base()}/_gm/reconciliation`);
    expect(await page.locator('#mismatches tr[data-id]').count()).toBe(3);
    const widths = await page.evaluate<{ scroll: number; client: number }>(
      `({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })`,
    );
    await page.screenshot({ path: `${import.meta.dirname}/../../../.reports/console-reconciliation-1280.png`, fullPage: true });
    expect(widths.scroll).toBeLessThanOrEqual(widths.client + 1);
  });

  it('Refund on the reconciliation page: a confirmation page with what moves, Cancel moves nothing, Confirm refunds; the row then stays in the history', async () => {
    const { paymentId, mismatch } = await takenNotCredited(stack, account, product);
    const refunds = () => stack.provider.control.payment(paymentId).refunds.length;
    await page.goto(`${base()}/_gm/reconciliation`);
    await page.click(`#mismatches tr[data-id="${mismatch}"] a[data-action="refund"]`);
    expect(new URL(page.url()).pathname).toBe('/_gm/reconciliation/act');
    const fact = (name: string) => page.textContent(`#facts tr[data-fact="${name}"] td`);
    expect([await fact('amount'), await fact('currency'), await fact('rail'), await fact('player')]).toEqual([
      '49.00 RUB',
      'RUB',
      'card (yookassa)',
      `account ${account}`,
    ]);
    expect(await fact('order')).toContain('(now pending, 10 chips)');
    await page.click('#back');
    expect(new URL(page.url()).pathname).toBe('/_gm/reconciliation');
    expect(refunds()).toBe(0);
    await page.click(`#mismatches tr[data-id="${mismatch}"] a[data-action="refund"]`);
    await page.click('#confirm');
    expect(await page.getAttribute('#outcome', 'data-outcome')).toBe('refunded');
    expect(refunds()).toBe(1);
    await page.click('#back');
    expect(await page.textContent(`#mismatches tr[data-id="${mismatch}"] .resolution`)).toContain('refunded');
    await page.click('#tab-history');
    expect(await page.getAttribute(`#history tr[data-id="${mismatch}"]`, 'data-resolution')).toMatch(/^refunded:/);
    expect(await page.textContent(`#history tr[data-id="${mismatch}"] td.by`)).toBe('ops@example.com');
  });

  it('a block makes the platform see the chat permission revoked; unblock gives it back', async () => {
    const platform = stack.platform;
    if (!platform) throw new Error('no platform emulator');
    const user = platform.control.createUser({ started: true }).user.id;
    // Linked before joining: the bot gates the join by eligibility, and an unlinked joiner is made read-only.
    await stack.db.query(`insert into platform_identities (account_id, kind, external_id) values ($1, 'telegram', $2)`, [
      account,
      String(user),
    ]);
    platform.control.join({ chatId: DISCUSSION_CHAT, userId: user });
    const standing = () =>
      platform.control
        .state()
        .chats.find((c) => c.chat.id === DISCUSSION_CHAT)
        ?.members.find((m) => m.user.id === user);
    expect(standing()).toMatchObject({ status: 'member' });

    await page.goto(`${base()}/_gm/users?q=${encodeURIComponent(`telegram:${user}`)}`);
    expect(await page.textContent('#accounts')).toContain('Payer <b>one</b>');
    await page.click(`#accounts a[href="/_gm/users/${account}"]`);
    await page.click('#block');
    expect(await page.textContent('#done')).toContain(`${user}:deny:delivered`);
    expect(await page.textContent('#status')).toBe('blocked');
    expect(standing()).toMatchObject({ status: 'restricted', is_member: true, can_send_messages: false });

    await page.click('#unblock');
    expect(await page.textContent('#done')).toContain(`${user}:allow:delivered`);
    expect(standing()).toMatchObject({ status: 'member' });
  });

  it('signs out: the cookie is gone and pages send the browser back to sign-in', async () => {
    await page.goto(`${base()}/_gm/ledger`);
    await page.click('header button[type=submit]');
    expect(new URL(page.url()).pathname).toBe('/_gm/login');
    await page.goto(`${base()}/_gm/users`);
    expect(new URL(page.url()).pathname).toBe('/_gm/login');
  });
});
