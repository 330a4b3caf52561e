import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readStackEnv } from '@wordgame/config';
import { confirmByPage, freePort } from '@wordgame/testkit';
import { launchString } from './launch.js';
import { DEV_BOT_TOKEN, DEV_VK_APP_SECRET, startStack, type Stack, type StackPorts } from './stack.js';

const root = resolve(import.meta.dirname, '../../..');

/** A command as the README gives it (`npm run <script> -w apps/backend -- …`), against the stack in `data`. */
function backendCommand(data: string, script: string, args: string[] = [], env: Record<string, string> = {}) {
  const run = spawnSync('npm', ['run', '--silent', script, '-w', 'apps/backend', '--', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, DEV_STACK_DIR: data, LOG_LEVEL: 'warn', ...env },
    timeout: 120_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

async function call(url: string, init: { method?: string; token?: string; json?: unknown } = {}) {
  const res = await fetch(url, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers: {
      ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.token === undefined ? {} : { authorization: `Bearer ${init.token}` }),
    },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: res.status, body };
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The backend's commands beside a running `npm start` (issue 30 item 4): each works against the
 * store the stack uses, with the credentials the stack wrote, or refuses; and a stop + start keeps
 * both emulators' books with the database, so reconciliation finds nothing a restart made up.
 */
describe('the backend commands while the dev stack runs', () => {
  let stack: Stack | undefined;
  let data: string;
  let ports: StackPorts;
  const lines: string[] = [];
  const start = async () => {
    stack = await startStack({ root, dataDir: data, ports, write: (l) => lines.push(l), readyTimeoutMs: 60_000, logLevel: 'warn' });
    return stack;
  };
  const botLinked = (s: Stack) =>
    eventually('bot linked', async () =>
      /^botlink_connected_bots 1$/m.test(await (await fetch(s.urls.metrics)).text()) ? true : undefined,
    );

  beforeAll(async () => {
    data = mkdtempSync(join(tmpdir(), 'wordgame-stack-commands-'));
    // As root the database runs as `postgres`, who must enter the folder (mkdtemp makes it 0700).
    chmodSync(data, 0o755);
    ports = {
      database: await freePort(),
      platform: await freePort(),
      provider: await freePort(),
      backend: await freePort(),
      gatewayHttp: await freePort(),
      botlink: await freePort(),
      botHealth: await freePort(),
      gatewayInternal: await freePort(),
      gatewayMetrics: await freePort(),
      backendMetrics: await freePort(),
    };
    await start();
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    rmSync(data, { recursive: true, force: true });
  }, 60_000);

  it('writes its credentials to one private file: database URL, service tokens, operator, bot token, shop', () => {
    const file = join(data, 'stack.env');
    expect(stack?.envFile).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    for (const name of [
      'DATABASE_URL',
      'BACKEND_SERVICE_TOKEN',
      'GATEWAY_INTERNAL_TOKEN',
      'DEV_OPERATOR_LOGIN',
      'DEV_OPERATOR_PASSWORD',
      'PLATFORM_BOT_TOKEN',
      'PROVIDER_EMULATOR_SHOPS',
    ])
      expect(text).toMatch(new RegExp(`^${name}=.+$`, 'm'));
    expect(text).toContain(`DATABASE_URL=${stack?.urls.database}`);
  });

  it('operator:create writes to the running stack: the new operator signs in at once', async () => {
    const created = backendCommand(data, 'operator:create', ['alice', 'viewer,refunder,catalog_editor'], {
      OPERATOR_PASSWORD: 'alice password 1',
    });
    expect(created).toMatchObject({ status: 0 });
    expect(JSON.parse(created.stdout)).toMatchObject({ login: 'alice' });
    const session = await call(`${stack?.urls.gateway}/_gm/api/session`, { json: { login: 'alice', password: 'alice password 1' } });
    expect(session.status).toBe(200);
    expect(typeof session.body['token']).toBe('string');
  }, 120_000);

  it('a stars and a card purchase reconcile clean and audit clean with the file\u2019s credentials, and again after a stop and start', async () => {
    const s = stack as Stack;
    const api = `${s.urls.gateway}/api/v1`;
    // The dev operator, as a newcomer finds it: in the stack's credentials file.
    const credentials = readStackEnv(data) ?? {};
    const operator = await call(`${s.urls.gateway}/_gm/api/session`, {
      json: { login: credentials['DEV_OPERATOR_LOGIN'], password: credentials['DEV_OPERATOR_PASSWORD'] },
    });
    expect(operator.status).toBe(200);
    const product = await call(`${s.urls.gateway}/_gm/api/catalog/products`, {
      token: String(operator.body['token']),
      json: {
        title: 'Restart chips',
        texts: { ru: { title: 'Фишки после перезапуска' } },
        atoms: [{ kind: 'chips', quantity: '100' }],
        prices: [
          { method: 'xtr', amount: '50', currency: 'XTR' },
          { method: 'provider', amount: '19900', currency: 'RUB' },
        ],
      },
    });
    expect(product.status).toBe(201);
    const productId = String(product.body['product_id']);
    await botLinked(s);

    // Stars: the platform's user pays the invoice the bot minted.
    const userId = 7001;
    expect((await call(`${s.urls.platform}/_control/users`, { json: { id: userId, firstName: 'Ann', started: true } })).status).toBe(200);
    const initData = launchString('telegram', String(userId), { telegramBotToken: DEV_BOT_TOKEN, vkAppSecret: DEV_VK_APP_SECRET });
    const tg = await call(`${api}/session/telegram`, { json: { init_data: initData } });
    expect(tg.status).toBe(200);
    const tgToken = String(tg.body['token']);
    const stars = await call(`${api}/user/wallet/orders`, { token: tgToken, json: { product_id: productId, rail: 'stars' } });
    expect(stars.status).toBe(201);
    expect((await call(`${s.urls.platform}/_control/pay`, { json: { link: stars.body['invoice_link'], user_id: userId } })).status).toBe(
      200,
    );
    await eventually('stars order paid', async () =>
      (await call(`${api}/user/wallet/orders/${String(stars.body['order_id'])}`, { token: tgToken })).body['state'] === 'paid'
        ? true
        : undefined,
    );

    // Card: a direct customer confirms the mailed link and pays on the provider's checkout page.
    const email = 'restart@example.test';
    const direct = await call(`${api}/session/direct`, { json: { email, password: 'restart password 1', mode: 'signup', subtype: 'web' } });
    expect(direct.status).toBe(200);
    const directToken = String(direct.body['token']);
    const mailbox = join(data, 'mailbox');
    const link = await eventually('confirmation mail', () => {
      for (const file of readdirSync(mailbox)) {
        const mail = readFileSync(join(mailbox, file), 'utf8').replace(/=\r?\n/g, '');
        const token = mail.includes(email) ? /confirm-email\?token=([A-Za-z0-9_%=-]+)/.exec(mail)?.[1] : undefined;
        if (token !== undefined) return Promise.resolve(`${api}/user/profile/confirm-email?token=${token}`);
      }
      return Promise.resolve(undefined);
    });
    expect((await confirmByPage(link)).outcome).toBe('confirmed');
    const card = await call(`${api}/user/wallet/orders`, { token: directToken, json: { product_id: productId, rail: 'card' } });
    expect(card.status).toBe(201);
    const checkoutUrl = new URL(String(card.body['confirmation_url']));
    const paymentId = checkoutUrl.searchParams.get('orderId') ?? checkoutUrl.searchParams.get('paymentId') ?? '';
    const checkout = await fetch(`${s.urls.provider}${checkoutUrl.pathname}${checkoutUrl.search}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ orderId: paymentId, action: 'pay' }).toString(),
      redirect: 'manual',
    });
    expect(checkout.status).toBeGreaterThanOrEqual(300);
    expect(checkout.status).toBeLessThan(400);
    await eventually('card order paid', async () =>
      (await call(`${api}/user/wallet/orders/${String(card.body['order_id'])}`, { token: directToken })).body['state'] === 'paid'
        ? true
        : undefined,
    );

    const reconcileClean = () => {
      const run = backendCommand(data, 'reconcile', ['--hours', '1']);
      let report: unknown;
      try {
        report = JSON.parse(run.stdout);
      } catch {
        report = { stdout: run.stdout, stderr: run.stderr };
      }
      expect({ status: run.status, report }).toMatchObject({
        status: 0,
        report: { run: { outcome: 'clean', rails: expect.arrayContaining(['card', 'stars']) as unknown }, mismatches: [] },
      });
    };
    reconcileClean();
    const audit = backendCommand(data, 'audit');
    expect(audit).toMatchObject({ status: 0 });
    expect(JSON.parse(audit.stdout)).toMatchObject({ clean: true });

    // A restart (what a newcomer does to run a command the old way): the emulators keep their books with the database.
    await s.stop();
    expect(() => statSync(join(data, 'stack.env'))).toThrow();
    const again = await start();
    await botLinked(again);
    reconcileClean();
    const migrate = backendCommand(data, 'migrate');
    expect(migrate).toMatchObject({ status: 0 });
    expect(JSON.parse(migrate.stdout)).toEqual({ applied: [] });
  }, 300_000);
});
