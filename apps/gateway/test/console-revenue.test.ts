import { createOperator, OPERATOR_PASSWORD, startConsoleStack, type ConsoleStack } from './console-support.js';

async function call(url: string, init: { method?: string; cookie?: string; form?: Record<string, string> } = {}) {
  const headers: Record<string, string> = {};
  if (init.cookie) headers['cookie'] = init.cookie;
  let body: string | undefined;
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  const res = await fetch(url, { method: init.method ?? 'GET', headers, body, redirect: 'manual' });
  return { status: res.status, type: res.headers.get('content-type') ?? '', setCookie: res.headers.getSetCookie(), text: await res.text() };
}

const DAY = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The revenue page through the console edge (gateway -> backend process -> PostgreSQL): revenue per
 * day, rail and product, each per currency (never summed across currencies), gross, refunds and
 * net; closed days from the daily rollup (which now keeps the product), today's open day from the
 * rows; a date range; the CSV download; the viewer role.
 */
describe('console revenue (/_gm/revenue)', () => {
  let stack: ConsoleStack;
  let viewer: string;
  let granterOnly: string;
  let big = '';
  let pass = '';
  const today = Math.floor(Date.now() / DAY) * DAY;
  const url = (path: string) => `${stack.urls.httpUrl}${path}`;
  const signIn = async (login: string) => {
    const form = await call(url('/_gm/login'));
    const nonceCookie = form.setCookie.find((c) => c.startsWith('gm_login='))?.split(';')[0] ?? '';
    const nonce = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? '';
    const res = await call(url('/_gm/login'), {
      method: 'POST',
      cookie: nonceCookie,
      form: { _csrf: nonce, login, password: OPERATOR_PASSWORD },
    });
    return res.setCookie.find((c) => c.startsWith('gm_session='))?.split(';')[0] ?? '';
  };
  /** The money attributes of the `table`'s row for `key` and `currency`. */
  const cells = (text: string, table: string, key: string, currency: string) => {
    const t = new RegExp(`<table id="${table}"[\\s\\S]*?</table>`).exec(text)?.[0] ?? '';
    const row =
      new RegExp(`<tr data-key="${key.replace(/[()#]/g, (c) => `\\${c}`)}" data-currency="${currency}">.*?</tr>`).exec(t)?.[0] ?? '';
    const attr = (name: string) => new RegExp(`data-${name}="(-?\\d+)"`).exec(row)?.[1];
    return row === '' ? null : { gross: attr('gross'), refunds: attr('refunds'), net: attr('net') };
  };

  beforeAll(async () => {
    stack = await startConsoleStack();
    expect(createOperator(stack.db.url, 'studio@ops.test', 'viewer').status).toBe(0);
    expect(createOperator(stack.db.url, 'granter-only@ops.test', 'granter').status).toBe(0);
    viewer = await signIn('studio@ops.test');
    granterOnly = await signIn('granter-only@ops.test');
    const account =
      (await stack.db.query<{ id: string }>(`insert into accounts (display_name) values ('Buyer') returning id`)).rows[0]?.id ?? '';
    big = (await stack.db.query<{ id: string }>(`insert into catalog_products (title) values ('Big pack') returning id`)).rows[0]?.id ?? '';
    pass =
      (await stack.db.query<{ id: string }>(`insert into catalog_products (title) values ('Monthly pass') returning id`)).rows[0]?.id ?? '';
    const at = (ms: number) => new Date(ms).toISOString();
    const rows: Array<[string, string | null, string | null, string | null, number | null, string]> = [
      ['purchase', 'yookassa', big, 'RUB', 9_900, at(today - 3 * DAY + 3_600_000)],
      ['purchase', 'yookassa', big, 'RUB', 9_900, at(today - 3 * DAY + 7_200_000)],
      ['refund', 'yookassa', big, 'RUB', -9_900, at(today - 3 * DAY + 10_800_000)],
      ['purchase', 'telegram_stars', pass, 'XTR', 250, at(today - 3 * DAY + 3_600_000)],
      ['purchase', 'telegram_stars', big, 'XTR', 100, at(today - DAY + 3_600_000)],
      ['purchase', 'yookassa', pass, 'RUB', 5_000, at(Date.now())],
      ['purchase', 'yookassa', big, 'RUB', 1_000_000, at(today - 40 * DAY)],
      ['make_good', null, null, null, null, at(today - 2 * DAY)],
      ['spend', null, big, null, null, at(today - 2 * DAY)],
    ];
    for (const [kind, rail, product, currency, money, created] of rows)
      await stack.db.query(
        `insert into ledger_operations (account_id, kind, segment, rail, provider, product_id, currency, money_minor, chips_delta, created_at)
         values ($1, $2, 'direct', $3, $3, $4, $5, $6, 0, $7)`,
        [account, kind, rail, product, currency, money, created],
      );
  }, 120_000);
  afterAll(() => stack?.stop());

  it('needs the viewer role; a malformed range is refused', async () => {
    expect((await call(url('/_gm/revenue'), { cookie: granterOnly })).status).toBe(403);
    expect((await call(url('/_gm/revenue.csv'), { cookie: granterOnly })).status).toBe(403);
    expect((await call(url('/_gm/revenue?from=yesterday'), { cookie: viewer })).status).toBe(400);
    expect((await call(url(`/_gm/revenue?from=${isoDay(today)}&to=${isoDay(today - DAY)}`), { cookie: viewer })).status).toBe(400);
  });

  it('shows the last 30 days per rail, per product and per day, per currency, gross, refunds and net, today included', async () => {
    const res = await call(url('/_gm/revenue'), { cookie: viewer });
    expect(res.status).toBe(200);
    const range = `${isoDay(today - 29 * DAY)} to ${isoDay(today)}`;
    expect(cells(res.text, 'totals', range, 'RUB')).toEqual({ gross: '24800', refunds: '9900', net: '14900' });
    expect(cells(res.text, 'totals', range, 'XTR')).toEqual({ gross: '350', refunds: '0', net: '350' });
    expect(cells(res.text, 'by-rail', 'yookassa', 'RUB')).toEqual({ gross: '24800', refunds: '9900', net: '14900' });
    expect(cells(res.text, 'by-rail', 'telegram_stars', 'XTR')).toEqual({ gross: '350', refunds: '0', net: '350' });
    expect(cells(res.text, 'by-rail', 'yookassa', 'XTR')).toBeNull();
    expect(cells(res.text, 'by-product', `Big pack (#${big})`, 'RUB')).toEqual({ gross: '19800', refunds: '9900', net: '9900' });
    expect(cells(res.text, 'by-product', `Big pack (#${big})`, 'XTR')).toEqual({ gross: '100', refunds: '0', net: '100' });
    expect(cells(res.text, 'by-product', `Monthly pass (#${pass})`, 'XTR')).toEqual({ gross: '250', refunds: '0', net: '250' });
    expect(cells(res.text, 'by-product', `Monthly pass (#${pass})`, 'RUB')).toEqual({ gross: '5000', refunds: '0', net: '5000' });
    expect(res.text).toContain(`<tr data-day="${isoDay(today)}" data-rail="yookassa" data-product="${pass}" data-currency="RUB">`);
    expect(res.text).toContain('data-chart="RUB"');
    expect(res.text).toContain('data-chart="XTR"');
    expect(res.text).toContain('<a href="/_gm/subscriptions">Subscriptions</a>');
    expect(res.text).toContain('<a href="/_gm/codes">Code redemptions</a>');
    // The closed days were rolled up with their product.
    const rolled = await stack.db.query<{ money: string }>(
      `select money from ledger_daily_totals where day = $1::date and product_id = $2 and kind = 'purchase' and currency = 'RUB'`,
      [isoDay(today - 3 * DAY), big],
    );
    expect(rolled.rows).toEqual([{ money: '19800' }]);
  });

  it('narrows to a date range and downloads the same lines as CSV', async () => {
    const one = await call(url(`/_gm/revenue?from=${isoDay(today - DAY)}&to=${isoDay(today - DAY)}`), { cookie: viewer });
    expect(cells(one.text, 'by-rail', 'telegram_stars', 'XTR')).toEqual({ gross: '100', refunds: '0', net: '100' });
    expect(cells(one.text, 'by-rail', 'yookassa', 'RUB')).toBeNull();

    const csv = await call(url(`/_gm/revenue.csv?from=${isoDay(today - 3 * DAY)}&to=${isoDay(today)}`), { cookie: viewer });
    expect(csv.status).toBe(200);
    expect(csv.type).toContain('text/csv');
    expect(csv.text.split('\r\n')).toEqual([
      'day_utc,rail,product_id,product_title,currency,purchases,gross_minor,refunds,refunds_minor,net_minor',
      `${isoDay(today - 3 * DAY)},telegram_stars,${pass},Monthly pass,XTR,1,250,0,0,250`,
      `${isoDay(today - 3 * DAY)},yookassa,${big},Big pack,RUB,2,19800,1,9900,9900`,
      `${isoDay(today - DAY)},telegram_stars,${big},Big pack,XTR,1,100,0,0,100`,
      `${isoDay(today)},yookassa,${pass},Monthly pass,RUB,1,5000,0,0,5000`,
      '',
    ]);
  });
});
