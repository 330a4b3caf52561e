// The compose smoke test: starts the stack exactly as `docker compose --env-file ops/dev.env up`
// would (ops/dev.env's settings and profiles, with fresh random values for every secret in it;
// environment with ${VAR} interpolation, volumes, ports, commands, depends_on order and conditions,
// health checks) with podman, from images already built as localhost/wordgame/<service>:<tag>, then
// checks it end to end through the containers: every service ready (its HEALTHCHECK asks /readyz),
// the bot linked, an operator made with the backend image's bundled command signs in to the operator
// API, a stars purchase and a card purchase credited (the confirmation mail read from the mail
// catcher), a console sign-in, and a clean stop (each container exits 0 on SIGTERM). All services
// share one pod, so each service name resolves to the pod's loopback. Public images are out of reach
// here: postgres is stood in for by the machine's PostgreSQL (role, password and database from its
// POSTGRES_* variables); any other service whose image is neither present nor pullable (prometheus,
// alertmanager) is skipped, and the test says so.
// Usage: node .ci/smoke.mjs <image-tag>   (run as root, after .ci/images.sh built the images)
import { execFileSync, spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createUser } from '@nats-io/nkeys';
import { parse } from 'yaml';

const root = resolve(import.meta.dirname, '..');
const tag = process.argv[2] ?? 'smoke';
const POD = `wordgame-smoke-${process.pid}`;
const UID = 10001; // the images' USER
const ENV_FILE = 'ops/dev.env';
const started = Date.now();
const say = (msg) => console.log(`[smoke ${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const podman = (args, opts = {}) => spawnSync('podman', args, { encoding: 'utf8', ...opts });
const must = (args) => {
  const r = podman(args);
  if (r.status !== 0) throw new Error(`podman ${args.join(' ')}: ${r.stderr || r.stdout}`);
  return r.stdout.trim();
};

/** ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?message}, ${VAR?message} and $$, as compose interpolates. */
function interpolate(value, env) {
  return String(value).replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])((?:[^}$]|\$\{[^}]*\})*))?\}/g, (m, name, colon, op, arg) => {
    if (m === '$$') return '$';
    const v = env[name];
    const unset = v === undefined || (colon === ':' && v === '');
    if (op === '-') return unset ? interpolate(arg ?? '', env) : v;
    if (op === '?') {
      if (unset) throw new Error(`compose requires ${name}: ${arg}`);
      return v;
    }
    return v ?? '';
  });
}

/** A free TCP port on the host's loopback (for publishing the pod's ports without clashing). */
const freePort = () =>
  new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });

/** Services in start order (depends_on first); profiles default and dev. */
function startOrder(services) {
  const order = [];
  const visit = (name, path = []) => {
    if (order.includes(name)) return;
    if (path.includes(name)) throw new Error(`depends_on cycle: ${[...path, name].join(' -> ')}`);
    for (const dep of Object.keys(dependsOn(services[name]))) visit(dep, [...path, name]);
    order.push(name);
  };
  for (const name of Object.keys(services)) visit(name);
  return order;
}
const dependsOn = (svc) =>
  Array.isArray(svc.depends_on)
    ? Object.fromEntries(svc.depends_on.map((d) => [d, { condition: 'service_started' }]))
    : (svc.depends_on ?? {});
const envOf = (svc, env) => {
  const raw = svc.environment ?? {};
  const pairs = Array.isArray(raw) ? raw.map((l) => l.split(/=(.*)/s).slice(0, 2)) : Object.entries(raw);
  return Object.fromEntries(pairs.map(([k, v]) => [k, v === null || v === undefined ? (env[k] ?? '') : interpolate(v, env)]));
};

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

/** KEY=VALUE lines of a compose env file (comments and blank lines skipped). */
const envFile = (path) =>
  Object.fromEntries(
    readFileSync(path, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.split(/=(.*)/s).slice(0, 2)),
  );

const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'));
const nkeyUser = () => {
  const pair = createUser();
  return { seed: new TextDecoder().decode(pair.getSeed()), publicKey: pair.getPublicKey() };
};
const natsGateway = nkeyUser();
const natsBackend = nkeyUser();
// The dev sandbox's settings, each secret in it replaced by a fresh value: nothing may depend on the published dev ones.
const env = {
  ...envFile(join(root, ENV_FILE)),
  POSTGRES_PASSWORD: randomBytes(16).toString('hex'),
  BACKEND_SERVICE_TOKEN: randomBytes(24).toString('hex'),
  GATEWAY_INTERNAL_TOKEN: randomBytes(24).toString('hex'),
  PLATFORM_BOT_TOKEN: `12345:${randomBytes(12).toString('hex')}`,
  BACKEND_VK_APP_SECRET: randomBytes(12).toString('hex'),
  NATS_GATEWAY_NKEY_SEED: natsGateway.seed,
  NATS_GATEWAY_NKEY: natsGateway.publicKey,
  NATS_BACKEND_NKEY_SEED: natsBackend.seed,
  NATS_BACKEND_NKEY: natsBackend.publicKey,
};
const profiles = (env.COMPOSE_PROFILES ?? '').split(',').filter(Boolean);
const services = Object.fromEntries(
  Object.entries(compose.services).filter(([, s]) => !s.profiles || s.profiles.some((p) => profiles.includes(p))),
);
const work = mkdtempSync(join(tmpdir(), 'wordgame-smoke-'));
const containers = [];
const volumes = [];
let substituteDb;
let failed = false;

function cleanup() {
  podman(['pod', 'rm', '-f', '-t', '0', POD]);
  for (const v of volumes) podman(['volume', 'rm', '-f', v]);
  if (substituteDb)
    spawnSync('psql', [
      '-h',
      '127.0.0.1',
      '-U',
      'postgres',
      '-d',
      'postgres',
      '-qc',
      `drop database if exists "${substituteDb}" with (force)`,
    ]);
  rmSync(work, { recursive: true, force: true });
}

try {
  cleanup();
  mkdirSync(work, { recursive: true });
  // The project directory compose's relative paths refer to: dev certificates exactly as `npm run certs`
  // lays them out (per-service folders, keys group-readable by the containers' uid); nothing is fixed up here.
  execFileSync('npx', ['--no-install', 'tsx', 'tools/devstack/src/certs-cli.ts', join(work, '.data/certs')], {
    cwd: root,
    stdio: 'ignore',
  });
  for (const service of ['gateway', 'bot']) {
    const key = statSync(join(work, '.data/certs', service, 'tls.key'));
    if (!(key.mode & 0o004 || (key.mode & 0o040 && key.gid === UID)))
      throw new Error(`npm run certs left ${service}/tls.key unreadable by uid ${UID}`);
  }
  // Services whose image is neither built here nor present nor pullable (Docker Hub is out of reach): skipped, said so.
  for (const [name, svc] of Object.entries(services)) {
    if (svc.build || /^postgres(:|$)/.test(svc.image ?? '')) continue;
    const image = interpolate(svc.image, env);
    const here = podman(['image', 'exists', image]).status === 0 || podman(['pull', '-q', image], { timeout: 20_000 }).status === 0;
    if (!here) {
      say(`${name}: SKIPPED (image ${image} cannot be pulled here; a real deploy pulls it)`);
      delete services[name];
    }
  }
  const order = startOrder(services);

  // One pod: every service name resolves to its loopback; the stand-in database is the host's.
  const ports = new Map();
  const podArgs = ['pod', 'create', '--name', POD, '--network', 'slirp4netns:allow_host_loopback=true'];
  for (const name of order) {
    if (/^postgres(:|$)/.test(services[name].image ?? '') && !services[name].build) podArgs.push('--add-host', `${name}:10.0.2.2`);
    else podArgs.push('--add-host', `${name}:127.0.0.1`);
    for (const p of services[name].ports ?? []) {
      const container = Number(String(interpolate(p, env)).split(':').pop());
      const host = await freePort();
      ports.set(container, host);
      podArgs.push('-p', `127.0.0.1:${host}:${container}`);
    }
  }
  must(podArgs);

  const healthy = async (name) => {
    const svc = services[name];
    if (!svc.build && /^postgres(:|$)/.test(svc.image ?? '')) return; // the stand-in: ready once created below
    await eventually(`${name} healthy`, () => podman(['healthcheck', 'run', `${POD}-${name}`]).status === 0, 90_000);
  };

  for (const name of order) {
    const svc = services[name];
    for (const [dep, { condition }] of Object.entries(dependsOn(svc))) {
      if (condition === 'service_healthy') await healthy(dep);
    }
    const vars = envOf(svc, env);
    if (!svc.build && /^postgres(:|$)/.test(svc.image ?? '')) {
      // postgres:15 is on Docker Hub, unreachable here: the machine's PostgreSQL with this service's role and database.
      const user = vars.POSTGRES_USER ?? 'postgres';
      substituteDb = vars.POSTGRES_DB ?? user;
      const sql = (q) => execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'postgres', '-qtAc', q], { encoding: 'utf8' });
      if (!sql(`select 1 from pg_roles where rolname = '${user}'`).trim()) sql(`create role "${user}" login`);
      sql(`alter role "${user}" password '${vars.POSTGRES_PASSWORD ?? ''}'`);
      sql(`drop database if exists "${substituteDb}" with (force)`);
      sql(`create database "${substituteDb}" owner "${user}"`);
      say(`${name}: stood in by the machine's PostgreSQL (database ${substituteDb})`);
      continue;
    }
    const args = ['run', '-d', '--pod', POD, '--name', `${POD}-${name}`];
    for (const [k, v] of Object.entries(vars)) args.push('-e', `${k}=${v}`);
    for (const v of svc.volumes ?? []) {
      const [src, dst, mode] = interpolate(v, env).split(':');
      // Relative paths are the project directory's: its .data (certificates) is this run's, the rest the checkout's.
      if (src.startsWith('.') || src.startsWith('/'))
        args.push('-v', `${resolve(src.startsWith('./.data') ? work : root, src)}:${dst}${mode ? `:${mode}` : ''}`);
      else {
        const vol = `${POD}-${src}`;
        volumes.push(vol);
        args.push('-v', `${vol}:${dst}${mode ? `:${mode}` : ''}`);
      }
    }
    if (svc.entrypoint) args.push('--entrypoint', JSON.stringify([].concat(svc.entrypoint)));
    if (svc.healthcheck?.test) {
      const test = [].concat(svc.healthcheck.test);
      args.push('--health-cmd', test[0] === 'CMD-SHELL' ? test[1] : JSON.stringify(test.slice(test[0] === 'CMD' ? 1 : 0)));
    }
    args.push(svc.build ? `localhost/wordgame/${name}:${tag}` : interpolate(svc.image, env));
    if (svc.command) args.push(...[].concat(svc.command).map((c) => interpolate(c, env)));
    must(args);
    containers.push(name);
    say(`${name}: started`);
  }
  for (const name of containers) await healthy(name);
  say(`every service healthy: ${containers.join(', ')}`);

  const gw = `http://127.0.0.1:${ports.get(8080)}`;
  const platform = `http://127.0.0.1:${ports.get(8081)}/_control`;
  const provider = `http://127.0.0.1:${ports.get(8082)}`;
  const mail = `http://127.0.0.1:${ports.get(1080)}`;
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
  // /metrics has its own port (GATEWAY_METRICS_PORT), reachable inside the pod only, as in compose.
  const metricsPort = envOf(services.gateway, env).GATEWAY_METRICS_PORT ?? '9464';
  const metrics = () =>
    podman([
      'exec',
      `${POD}-gateway`,
      'node',
      '-e',
      `fetch('http://127.0.0.1:${metricsPort}/metrics').then((r) => r.text()).then((t) => process.stdout.write(t))`,
    ]).stdout;
  if ((await fetch(`${gw}/metrics`)).status !== 404) throw new Error('the public port serves /metrics');
  await eventually('botlink_connected_bots 1', async () => /^botlink_connected_bots(\{[^}]*\})? 1$/m.test(metrics()));
  say(`bot linked (gateway metrics port ${metricsPort}: botlink_connected_bots 1; the public port answers 404 for /metrics)`);

  // The first operator, made with the backend image's bundled command (as the README's deploy section does it).
  const backendVars = envOf(services.backend, env);
  const create = podman([
    'run',
    '--rm',
    '--pod',
    POD,
    ...Object.entries({ ...backendVars, OPERATOR_PASSWORD: 'smoke operator password' }).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    `localhost/wordgame/backend:${tag}`,
    'operator-create',
    'smoke',
    'viewer,catalog_editor',
  ]);
  if (create.status !== 0) throw new Error(`operator-create: ${create.stderr}`);
  const operator = await json(`${gw}/_gm/api/session`, { method: 'POST', body: { login: 'smoke', password: 'smoke operator password' } });
  if (operator.status !== 200 || !operator.body.token)
    throw new Error(`operator API sign-in: ${operator.status} ${JSON.stringify(operator.body)}`);
  say('operator made by `backend operator-create` signed in to the operator API');

  // A product with both rails, through the operator API.
  const product = await json(`${gw}/_gm/api/catalog/products`, {
    method: 'POST',
    headers: { authorization: `Bearer ${operator.body.token}` },
    body: {
      title: 'Smoke chips',
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
  const userId = 7001;
  await json(`${platform}/users`, { method: 'POST', body: { id: userId, firstName: 'Smoke', started: true } });
  const fields = { auth_date: String(Math.floor(Date.now() / 1000)), user: JSON.stringify({ id: userId, first_name: 'Smoke' }) };
  const check = Object.keys(fields)
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('\n');
  const secret = createHmac('sha256', 'WebAppData').update(env.PLATFORM_BOT_TOKEN).digest();
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
  const email = 'smoke@example.test';
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

  // Console: the same operator signs in through the login form.
  const loginPage = await fetch(`${gw}/_gm/login`);
  const nonce = /gm_login=([^;]+)/.exec(loginPage.headers.get('set-cookie') ?? '')?.[1];
  const signIn = await fetch(`${gw}/_gm/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `gm_login=${nonce}` },
    body: new URLSearchParams({ _csrf: nonce ?? '', login: 'smoke', password: 'smoke operator password' }).toString(),
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

  // Clean stop: SIGTERM in reverse start order, each container exits 0.
  const codes = [];
  for (const name of [...containers].reverse()) {
    podman(['stop', '-t', '20', `${POD}-${name}`]);
    codes.push(`${name}=${must(['inspect', '--format', '{{.State.ExitCode}}', `${POD}-${name}`])}`);
  }
  if (codes.some((c) => !c.endsWith('=0'))) throw new Error(`exit codes after SIGTERM: ${codes.join(' ')}`);
  say(`clean stop: ${codes.join(' ')}`);
} catch (err) {
  failed = true;
  console.error(`SMOKE FAILED: ${err instanceof Error ? err.message : String(err)}`);
  for (const name of containers) {
    console.error(`--- ${name} (last log lines)`);
    console.error(podman(['logs', '--tail', '25', `${POD}-${name}`]).stdout + podman(['logs', '--tail', '25', `${POD}-${name}`]).stderr);
  }
} finally {
  cleanup();
}
say(failed ? 'failed' : 'passed');
process.exit(failed ? 1 : 0);
