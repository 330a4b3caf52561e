// The end-to-end flows against a compose stack that is already up (.ci/images.sh brings it up with
// docker-compose exactly as docs/operating/deploy.md says, and makes the first operator with the
// backend image's bundled command): every published service answers /livez and /readyz, the
// gateway serves the wallet page with its strict CSP and no public /metrics, the bot linked
// (botlink_connected_bots 1, read inside the gateway's container), the operator signs in to the
// operator API and adds a product, a stars purchase and a card purchase are credited (the
// confirmation mail read from the mail catcher), the operator refunds the card order, and the
// console sign-in opens the ledger. It starts nothing itself.
// Usage (environment): SMOKE_COMPOSE="docker-compose --env-file F -p P" SMOKE_GATEWAY=http://127.0.0.1:8080
//   SMOKE_PLATFORM=… SMOKE_PROVIDER=… SMOKE_MAIL=… SMOKE_BOT_TOKEN=… SMOKE_OPERATOR_LOGIN=… SMOKE_OPERATOR_PASSWORD=…
//   node .ci/smoke.mjs
import { spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';

const started = Date.now();
const say = (msg) => console.log(`[smoke ${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const need = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`set ${name}`);
  return v;
};
const composeCmd = need('SMOKE_COMPOSE').split(' ').filter(Boolean);
/** Runs the caller's compose command with more arguments (the stack's own tool, never podman directly). */
const compose = (...args) => spawnSync(composeCmd[0], [...composeCmd.slice(1), ...args], { encoding: 'utf8' });
const operatorLogin = need('SMOKE_OPERATOR_LOGIN');
const operatorPassword = need('SMOKE_OPERATOR_PASSWORD');

async function eventually(what, fn, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new Error(`timed out: ${what}${last ? ` (${last.message})` : ''}`);
    await sleep(500);
  }
}

async function json(url, init = {}) {
  const res = await fetch(url, {
    ...init,
    headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body, headers: res.headers };
}

let failed = false;
try {
  const gw = need('SMOKE_GATEWAY');
  const platform = `${need('SMOKE_PLATFORM')}/_control`;
  const provider = need('SMOKE_PROVIDER');
  const mail = need('SMOKE_MAIL');
  const api = `${gw}/api/v1`;

  // Liveness and readiness as the images' HEALTHCHECKs ask them (published ports: gateway, mail catcher).
  for (const base of [gw, mail]) {
    for (const probe of ['/livez', '/readyz']) {
      const r = await fetch(`${base}${probe}`);
      if (r.status !== 200) throw new Error(`${base}${probe}: ${r.status}`);
    }
  }
  say('gateway and mail catcher answer /livez and /readyz');
  const wallet = await fetch(`${gw}/wallet`);
  if (wallet.status !== 200 || !(wallet.headers.get('content-security-policy') ?? '').includes("default-src 'self'"))
    throw new Error(`/wallet: ${wallet.status}, csp ${wallet.headers.get('content-security-policy')}`);
  say('the gateway image serves the wallet page (/wallet, strict CSP)');

  // The bot linked.
  // /metrics has its own port (GATEWAY_METRICS_PORT 9464), reachable on the compose network only: asked from inside.
  const metricsPort = 9464;
  const metrics = () =>
    compose(
      'exec',
      '-T',
      'gateway',
      'node',
      '-e',
      `fetch('http://127.0.0.1:${metricsPort}/metrics').then((r) => r.text()).then((t) => process.stdout.write(t))`,
    ).stdout;
  if ((await fetch(`${gw}/metrics`)).status !== 404) throw new Error('the public port serves /metrics');
  await eventually('botlink_connected_bots 1', async () => /^botlink_connected_bots(\{[^}]*\})? 1$/m.test(metrics()));
  say(`bot linked (gateway metrics port ${metricsPort}: botlink_connected_bots 1; the public port answers 404 for /metrics)`);

  // The first operator was made by the caller with the backend image's bundled command, as docs/operating/deploy.md says.
  const operator = await json(`${gw}/_gm/api/session`, { method: 'POST', body: { login: operatorLogin, password: operatorPassword } });
  if (operator.status !== 200 || !operator.body.token)
    throw new Error(`operator API sign-in: ${operator.status} ${JSON.stringify(operator.body)}`);
  say('operator made by `backend operator-create` signed in to the operator API');

  // A product with both rails, through the operator API.
  const product = await json(`${gw}/_gm/api/catalog/products`, {
    method: 'POST',
    headers: { authorization: `Bearer ${operator.body.token}` },
    body: {
      texts: {
        en: { title: `Smoke chips ${randomBytes(3).toString('hex')}` },
        ru: { title: `Фишки для проверки ${randomBytes(3).toString('hex')}` },
      },
      atoms: [{ kind: 'chips', quantity: '100' }],
      prices: [
        { method: 'xtr', amount: '50', currency: 'XTR' },
        { method: 'provider', amount: '19900', currency: 'RUB' },
      ],
    },
  });
  if (product.status !== 201) throw new Error(`create product: ${product.status} ${JSON.stringify(product.body)}`);
  const productId = product.body.product_id;
  const bearer = (token) => ({ authorization: `Bearer ${token}` });
  const segment = async (token, name) =>
    ((await json(`${api}/user/wallet`, { headers: bearer(token) })).body.segments ?? []).find((s) => s.segment === name)?.balance ?? '0';

  // Stars: a Telegram customer (init data signed with the bot token), the bot mints the invoice, the payer pays.
  const userId = 7001 + Math.floor(Math.random() * 1_000_000);
  await json(`${platform}/users`, { method: 'POST', body: { id: userId, firstName: 'Smoke', started: true } });
  const fields = { auth_date: String(Math.floor(Date.now() / 1000)), user: JSON.stringify({ id: userId, first_name: 'Smoke' }) };
  const check = Object.keys(fields)
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('\n');
  const secret = createHmac('sha256', 'WebAppData').update(need('SMOKE_BOT_TOKEN')).digest();
  const initData = new URLSearchParams({ ...fields, hash: createHmac('sha256', secret).update(check).digest('hex') }).toString();
  const tg = await json(`${api}/session/telegram`, { method: 'POST', body: { init_data: initData } });
  if (tg.status !== 200) throw new Error(`telegram session: ${tg.status} ${JSON.stringify(tg.body)}`);
  const stars = await json(`${api}/user/wallet/orders`, {
    method: 'POST',
    headers: bearer(tg.body.token),
    body: { product_id: productId, rail: 'stars' },
  });
  if (stars.status !== 201 || !stars.body.invoice_link) throw new Error(`stars order: ${stars.status} ${JSON.stringify(stars.body)}`);
  const paid = await json(`${platform}/pay`, { method: 'POST', body: { link: stars.body.invoice_link, user_id: userId } });
  if (paid.status !== 200) throw new Error(`pay: ${paid.status} ${JSON.stringify(paid.body)}`);
  await eventually(
    'stars order paid',
    async () => (await json(`${api}/user/wallet/orders/${stars.body.order_id}`, { headers: bearer(tg.body.token) })).body.state === 'paid',
  );
  const starsChips = await segment(tg.body.token, 'telegram');
  if (starsChips !== '100') throw new Error(`stars purchase credited ${starsChips} chips, expected 100`);
  say('stars purchase credited (100 chips on the telegram segment)');

  // Card: a direct customer confirms the e-mail caught by the mail catcher (backend SMTP), pays on the provider's checkout page.
  const email = `smoke-${randomBytes(4).toString('hex')}@example.test`;
  const direct = await json(`${api}/session/direct`, {
    method: 'POST',
    body: { email, password: 'smoke password 1', mode: 'signup', subtype: 'web' },
  });
  if (direct.status !== 200) throw new Error(`direct session: ${direct.status} ${JSON.stringify(direct.body)}`);
  const token = await eventually('confirmation mail in the mail catcher', async () => {
    const [latest] = (await json(`${mail}/messages?to=${encodeURIComponent(email)}`)).body.messages ?? [];
    if (!latest) return undefined;
    const text = (await json(`${mail}/messages/${latest.id}`)).body.text ?? '';
    return /confirm-email\?token=([A-Za-z0-9_%=-]+)/.exec(text)?.[1];
  });
  // The mailed link shows a page (a GET confirms nothing); its one button posts the form with the page's token.
  const link = `${api}/user/profile/confirm-email?token=${token}`;
  const confirmPage = await (await fetch(link)).text();
  const confirmFields = Object.fromEntries(
    [...confirmPage.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]),
  );
  const confirmed = await fetch(link.split('?')[0], {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(confirmFields).toString(),
  });
  const confirmedPage = await confirmed.text();
  if (!confirmedPage.includes('data-outcome="confirmed"')) throw new Error(`confirm e-mail: ${confirmed.status} ${confirmedPage}`);
  const card = await json(`${api}/user/wallet/orders`, {
    method: 'POST',
    headers: bearer(direct.body.token),
    body: { product_id: productId, rail: 'card' },
  });
  if (card.status !== 201 || !card.body.confirmation_url) throw new Error(`card order: ${card.status} ${JSON.stringify(card.body)}`);
  const checkoutUrl = new URL(card.body.confirmation_url);
  const paymentId =
    checkoutUrl.searchParams.get('orderId') ?? checkoutUrl.searchParams.get('paymentId') ?? card.body.confirmation_url.split(/[=/]/).pop();
  const checkout = await fetch(`${provider}${checkoutUrl.pathname}${checkoutUrl.search}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ orderId: paymentId, action: 'pay' }).toString(),
    redirect: 'manual',
  });
  if (checkout.status < 300 || checkout.status >= 400) throw new Error(`checkout: ${checkout.status} ${await checkout.text()}`);
  await eventually(
    'card order paid',
    async () =>
      (await json(`${api}/user/wallet/orders/${card.body.order_id}`, { headers: bearer(direct.body.token) })).body.state === 'paid',
  );
  const cardChips = await segment(direct.body.token, 'direct');
  if (cardChips !== '100') throw new Error(`card purchase credited ${cardChips} chips, expected 100`);
  say('card purchase credited (provider checkout -> notification -> 100 chips on the direct segment)');

  // A refund: the operator (refunder role) refunds the card order in full; the customer sees it refunded.
  const refund = await eventually('refund succeeded', async () => {
    const r = await json(`${gw}/_gm/api/orders/${card.body.order_id}/refund`, {
      method: 'POST',
      headers: { authorization: `Bearer ${operator.body.token}` },
    });
    if (r.status !== 200) throw new Error(`refund: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.status === 'succeeded' ? r.body : undefined; // pending: press again (same idempotence key)
  });
  await eventually(
    'order shows refunded',
    async () =>
      (await json(`${api}/user/wallet/orders/${card.body.order_id}`, { headers: bearer(direct.body.token) })).body.refunded === true,
  );
  say(`card order refunded by the operator (refund ${refund.refund_id}, the customer's order shows refunded)`);

  // Console: the same operator signs in through the login form.
  const loginPage = await fetch(`${gw}/_gm/login`);
  const nonce = /gm_login=([^;]+)/.exec(loginPage.headers.get('set-cookie') ?? '')?.[1];
  const signIn = await fetch(`${gw}/_gm/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `gm_login=${nonce}` },
    body: new URLSearchParams({ _csrf: nonce ?? '', login: operatorLogin, password: operatorPassword }).toString(),
    redirect: 'manual',
  });
  const session = /gm_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1];
  if (signIn.status !== 303 || !session) throw new Error(`console sign-in: ${signIn.status}`);
  // Follow the console's own redirects (a default filter) with the session cookie; never to the login page.
  let page = `${gw}/_gm/ledger`;
  let ledger;
  for (let hops = 0; hops < 5; hops++) {
    ledger = await fetch(page, { headers: { cookie: `gm_session=${session}` }, redirect: 'manual' });
    const next = ledger.headers.get('location');
    if (ledger.status < 300 || ledger.status >= 400 || !next) break;
    if (next.includes('/_gm/login')) throw new Error('console sent the signed-in operator back to the login page');
    page = new URL(next, page).toString();
  }
  if (ledger?.status !== 200) throw new Error(`console ledger after sign-in: ${ledger?.status}`);
  say('console sign-in (operator made by `backend operator-create`) opens /_gm/ledger');
} catch (err) {
  failed = true;
  console.error(`SMOKE FAILED: ${err instanceof Error ? err.message : String(err)}`);
}
say(failed ? 'failed' : 'passed');
process.exit(failed ? 1 : 0);
