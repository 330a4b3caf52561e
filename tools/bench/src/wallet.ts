/**
 * Wallet bench: drives `wallet.get` and `wallet.buy` through gateway -> backend -> PostgreSQL at
 * BENCH_CONNECTIONS keep-alive connections (default 50), then runs pgbench with the equivalent
 * spend transaction (the same statements `wallet.buy` issues) at the same client count, and prints
 * throughput, p50/p99 and the buy/pgbench ratio. Run: `npx tsx tools/bench/src/wallet.ts`.
 * Needs the local PostgreSQL (DATABASE_URL or postgres://postgres@127.0.0.1:5432/test) and pgbench.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ensureDevCerts } from '@wordgame/testkit';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const seconds = Number(process.env['BENCH_SECONDS'] ?? 10);
const serverUrl = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function start(name: string, entry: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [tsx, entry], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[${name}] ${chunk.toString()}`));
  return child;
}

async function waitHealthy(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not become healthy`);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: connections });

function request(base: string, method: string, pathname: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(pathname, base), { method, agent, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Figures {
  requests: number;
  errors: number;
  perSecond: number;
  p50: number;
  p99: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

/** Runs `connections` closed-loop workers for `seconds`; worker i uses token i. */
async function drive(run: (worker: number, n: number) => Promise<boolean>): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async (_, worker) => {
      for (let n = 0; performance.now() < end; n += 1) {
        const s = performance.now();
        const ok = await run(worker, n);
        latencies.push(performance.now() - s);
        if (!ok) errors += 1;
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, errors, perSecond: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

const PGBENCH_SPEND = `
\\set aid :client_id + 1
\\set key random(1, 1000000000000)
BEGIN;
SELECT segment, balance FROM wallet_segments WHERE account_id = :aid ORDER BY segment FOR UPDATE;
INSERT INTO buy_requests (account_id, idempotency_key, product_id, result) VALUES (:aid, 'pgb-' || :key, :pid, NULL) ON CONFLICT DO NOTHING RETURNING product_id;
SELECT p.id, pr.amount FROM catalog_products p LEFT JOIN catalog_prices pr ON pr.product_id = p.id AND pr.method = 'chips' WHERE p.id = :pid AND p.active;
SELECT a.kind, a.quantity FROM catalog_product_atoms pa JOIN catalog_atoms a ON a.id = pa.atom_id WHERE pa.product_id = :pid;
UPDATE wallet_segments SET balance = balance - 1 WHERE account_id = :aid AND segment = 'direct';
INSERT INTO ledger_operations (account_id, kind, segment, product_id, chips_delta, created_at, benefit_origin, hints_delta) VALUES (:aid, 'spend', 'direct', :pid, -1, now(), 'direct', 1);
INSERT INTO benefits (account_id, origin, no_ads_until, no_ads_forever, hints) VALUES (:aid, 'direct', NULL, false, 1) ON CONFLICT (account_id, origin) DO UPDATE SET no_ads_until = benefits.no_ads_until, no_ads_forever = benefits.no_ads_forever OR excluded.no_ads_forever, hints = benefits.hints + excluded.hints;
SELECT origin, no_ads_until, no_ads_forever, hints FROM benefits WHERE account_id = :aid ORDER BY origin;
UPDATE buy_requests SET result = '{"bench":true}' WHERE account_id = :aid AND idempotency_key = 'pgb-' || :key;
END;
`;

function pgbench(url: string, productId: bigint): Figures {
  const dir = mkdtempSync(path.join(tmpdir(), 'pgbench-wallet-'));
  const script = path.join(dir, 'spend.sql');
  writeFileSync(script, PGBENCH_SPEND);
  const run = spawnSync(
    'pgbench',
    ['-n', '-c', String(connections), '-j', '2', '-T', String(seconds), '-D', `pid=${productId}`, '-f', script, '-l', `--log-prefix=${path.join(dir, 'log')}`, url],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`pgbench failed: ${run.stderr}`);
  const latencies = readdirSync(dir)
    .filter((f) => f.startsWith('log'))
    .flatMap((f) => readFileSync(path.join(dir, f), 'utf8').trim().split('\n'))
    .map((line) => Number(line.split(' ')[2]) / 1000)
    .sort((a, b) => a - b);
  const failed = /number of failed transactions: (\d+)/.exec(run.stdout)?.[1];
  const tps = Number(/tps = ([\d.]+)/.exec(run.stdout)?.[1] ?? NaN);
  return { requests: latencies.length, errors: Number(failed ?? 0), perSecond: tps, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function stopAll(children: ChildProcess[]): Promise<void> {
  const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const child of running) child.kill('SIGTERM');
  await Promise.all(running.map((c) => new Promise((r) => c.once('exit', r))));
}

async function main(): Promise<void> {
  const dbName = `bench_wallet_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${dbName}`);
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${dbName}`;
  const children: ChildProcess[] = [];
  try {
    const [backendPort, httpPort, botlinkPort, internalPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const certs = ensureDevCerts(path.join(root, '.data/certs'));
    const backendUrl = `http://127.0.0.1:${backendPort}`;
    const gateway = `http://127.0.0.1:${httpPort}`;
    children.push(
      start('backend', 'apps/backend/src/main.ts', {
        DATABASE_URL: dbUrl.toString(),
        BACKEND_PORT: String(backendPort),
        BACKEND_SEED_CATALOG: 'false',
        DB_POOL_MAX: String(Math.max(connections, 20)),
        LOG_LEVEL: 'warn',
        MAIL_DEV_DIR: mkdtempSync(path.join(tmpdir(), 'bench-mail-')),
      }),
    );
    await waitHealthy(`${backendUrl}/health`);
    children.push(
      start('gateway', 'apps/gateway/src/main.ts', {
        BACKEND_URL: backendUrl,
        GATEWAY_HTTP_PORT: String(httpPort),
        BOTLINK_PORT: String(botlinkPort),
        GATEWAY_INTERNAL_PORT: String(internalPort),
        BOTLINK_TLS_CA: certs.ca.cert,
        BOTLINK_TLS_CERT: certs.gateway.cert,
        BOTLINK_TLS_KEY: certs.gateway.key,
        LOG_LEVEL: 'warn',
      }),
    );
    await waitHealthy(`${gateway}/health`);

    const tokens: string[] = [];
    for (let i = 0; i < connections; i += 1) {
      const res = await request(gateway, 'POST', '/api/v1/session/direct', {}, JSON.stringify({ email: `bench${i}@example.com`, password: 'bench-password', mode: 'signup', subtype: 'web' }));
      if (res.status !== 200) throw new Error(`signup failed: ${res.status} ${res.text}`);
      tokens.push((JSON.parse(res.text) as { token: string }).token);
    }
    const db = new pg.Client({ connectionString: dbUrl.toString() });
    await db.connect();
    const product = await db.query<{ id: string }>(`insert into catalog_products (title) values ('Bench hint') returning id`);
    const productId = BigInt(product.rows[0]?.id ?? '0');
    await db.query(`insert into catalog_atoms (kind, quantity) values ('hints', 1) on conflict do nothing`);
    await db.query(`insert into catalog_product_atoms (product_id, atom_id) select $1, id from catalog_atoms where kind = 'hints' and quantity = 1`, [productId]);
    await db.query(`insert into catalog_prices (product_id, method, amount, currency) values ($1, 'chips', 1, 'CHIPS')`, [productId]);
    await db.query(`update wallet_segments set balance = balance + 1000000000 where segment = 'direct'`);
    await db.query(`insert into ledger_operations (account_id, kind, segment, chips_delta, note) select id, 'grant', 'direct', 1000000000, 'bench' from accounts`);
    await db.end();

    const auth = (worker: number) => ({ authorization: `Bearer ${tokens[worker] ?? ''}` });
    await drive(async (w) => (await request(gateway, 'GET', '/api/v1/user/wallet', auth(w))).status === 200);
    const get = await drive(async (w) => (await request(gateway, 'GET', '/api/v1/user/wallet', auth(w))).status === 200);
    const buy = await drive(async (w, n) => {
      const res = await request(gateway, 'POST', '/api/v1/user/wallet', { ...auth(w), 'idempotency-key': `b-${w}-${n}-${randomBytes(4).toString('hex')}` }, JSON.stringify({ product_id: String(productId) }));
      return res.status === 200;
    });
    // The backend's pool is released before pgbench opens its own clients (max_connections is shared).
    await stopAll(children);
    const bench = pgbench(dbUrl.toString(), productId);

    const audit = spawnSync(process.execPath, [tsx, 'apps/backend/src/ledger/audit-cli.ts'], { cwd: root, env: { ...process.env, DATABASE_URL: dbUrl.toString() }, encoding: 'utf8' });
    const row = (name: string, f: Figures) =>
      `${name.padEnd(26)} ${f.perSecond.toFixed(0).padStart(8)} /s   p50 ${f.p50.toFixed(2).padStart(7)} ms   p99 ${f.p99.toFixed(2).padStart(7)} ms   n=${f.requests} errors=${f.errors}`;
    process.stdout.write(
      [
        `wallet bench: ${connections} connections, ${seconds} s per run, PostgreSQL ${serverUrl.replace(/\/\/.*@/, '//')}`,
        row('wallet.get (gateway)', get),
        row('wallet.buy (gateway)', buy),
        row('pgbench spend txn', bench),
        `wallet.buy / pgbench = ${((buy.perSecond / bench.perSecond) * 100).toFixed(1)} %   (target >= 50 %, buy p99 < 20 ms, get >= 4000/s)`,
        `ledger audit after the runs: ${audit.status === 0 ? 'clean' : `PROBLEMS (exit ${audit.status})\n${audit.stdout}${audit.stderr}`}`,
        '',
      ].join('\n'),
    );
  } finally {
    await stopAll(children);
    agent.destroy();
    await admin(`drop database if exists ${dbName} with (force)`);
  }
}

await main();
