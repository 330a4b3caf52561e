/**
 * Wallet bench: drives `wallet.get` and `wallet.buy` through gateway -> backend -> PostgreSQL at
 * BENCH_CONNECTIONS keep-alive connections (default 50), next to pgbench running the equivalent
 * spend transaction at the same client count, and prints throughput, p50/p99, the buy/pgbench
 * ratio, the CPU each process used per request, and the load average. Run: `npm run wallet -w
 * tools/bench`. Needs the local PostgreSQL (DATABASE_URL or postgres://postgres@127.0.0.1:5432/test)
 * and pgbench. pgbench runs the very statement wallet.buy issues (read from the backend's source,
 * prepared); the old 11-statement transaction is printed for comparison.
 *
 * Method: the gateway and backend run from their esbuild bundles with NODE_ENV=production and
 * LOG_LEVEL=warn; the load generator is a separate process (raw keep-alive HTTP/1.1, one request in
 * flight per connection, worker i signed in as account i). BENCH_ROUNDS rounds (default 3) each run
 * wallet.get, wallet.buy and pgbench back to back and give one ratio; the median is the headline,
 * because the machine is shared and its load moves between runs. Each figure is a closed-loop run
 * (saturation throughput; at 50 connections Little's law makes latency = 50 / throughput, so a
 * p99 under 20 ms needs well over 2,500 buys/s). A paced run then offers half the closed-loop buy
 * throughput and measures latency from each request's scheduled send time: the latency a buyer
 * sees when the service is not saturated.
 */
import { type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { adminQuery, ensureDevCerts } from '@wordgame/testkit';
import { runLoad } from './load/run.js';
import type { LoadFigures, LoadSpec, RequestTemplate } from './load/spec.js';
import { cpuMsOf, pgbench, pgbenchSpendStatement, PGBENCH_SPEND_CLASSIC } from './wallet-pgbench.js';
import { printResult } from './report/result.js';
import { buildBundles, freePort, gatewayEnv, quietBackendEnv, loadLine, root, runAudit, startBundle, stopAll, waitHealthy } from './services.js';
import { median } from './stats.js';

const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const seconds = Number(process.env['BENCH_SECONDS'] ?? 10);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
const warmupSeconds = Number(process.env['BENCH_WARMUP_SECONDS'] ?? 10);
/** The backend's pool: 8 (about 4 per core) unless BENCH_DB_POOL_MAX says otherwise; printed with the figures. */
const poolMax = process.env['BENCH_DB_POOL_MAX'] ?? '8';
const serverUrl = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

const admin = (sql: string, url = serverUrl): Promise<void> => adminQuery(url, sql);

interface Stack {
  children: ChildProcess[];
  gateway: string;
  port: number;
}

async function startStack(dbUrl: string): Promise<Stack> {
  const [backendPort, httpPort, botlinkPort, internalPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const certs = ensureDevCerts(path.join(root, '.data/certs'));
  const backend = startBundle('backend', quietBackendEnv(dbUrl, backendPort, internalPort, poolMax));
  await waitHealthy(`http://127.0.0.1:${backendPort}/health`);
  const gateway = startBundle('gateway', gatewayEnv(`http://127.0.0.1:${backendPort}`, { http: httpPort, botlink: botlinkPort, internal: internalPort }, certs));
  await waitHealthy(`http://127.0.0.1:${httpPort}/health`);
  return { children: [backend, gateway], gateway: `http://127.0.0.1:${httpPort}`, port: httpPort };
}

async function signUp(gateway: string): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < connections; i += 1) {
    const res = await fetch(`${gateway}/api/v1/session/direct`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `bench${i}@example.com`, password: 'bench-password', mode: 'signup', subtype: 'web' }),
    });
    if (res.status !== 200) throw new Error(`signup failed: ${res.status} ${await res.text()}`);
    tokens.push(((await res.json()) as { token: string }).token);
  }
  return tokens;
}

async function seedProduct(dbUrl: string): Promise<bigint> {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const product = await db.query<{ id: string }>(`insert into catalog_products (title) values ('Bench hint') returning id`);
    const productId = BigInt(product.rows[0]?.id ?? '0');
    await db.query(`insert into catalog_atoms (kind, quantity) values ('hints', 1) on conflict do nothing`);
    await db.query(`insert into catalog_product_atoms (product_id, atom_id) select $1, id from catalog_atoms where kind = 'hints' and quantity = 1`, [productId]);
    await db.query(`insert into catalog_prices (product_id, method, amount, currency) values ($1, 'chips', 1, 'CHIPS')`, [productId]);
    await db.query(`update wallet_segments set balance = balance + 1000000000 where segment = 'direct'`);
    await db.query(`insert into ledger_operations (account_id, kind, segment, chips_delta, note) select id, 'grant', 'direct', 1000000000, 'bench' from accounts`);
    await db.query('vacuum analyze');
    return productId;
  } finally {
    await db.end();
  }
}

/** Runs one load spec while measuring the CPU the gateway and backend spent on it. */
async function measured(stack: Stack, spec: Omit<LoadSpec, 'host' | 'port' | 'uniquePrefix'>): Promise<LoadFigures & { gatewayCpuMs: number; backendCpuMs: number; load: string }> {
  const [backend, gateway] = stack.children.map((c) => c.pid ?? 0) as [number, number];
  const before = [cpuMsOf(gateway), cpuMsOf(backend)];
  const figures = await runLoad({ ...spec, host: '127.0.0.1', port: stack.port, uniquePrefix: randomBytes(4).toString('hex') });
  return { ...figures, gatewayCpuMs: cpuMsOf(gateway) - (before[0] ?? 0), backendCpuMs: cpuMsOf(backend) - (before[1] ?? 0), load: loadLine() };
}

type Row = Pick<LoadFigures, 'perSecond' | 'p50' | 'p99' | 'requests' | 'errors'> & Partial<LoadFigures & { gatewayCpuMs: number; backendCpuMs: number; load: string }>;

function row(name: string, f: Row): string {
  const perReq = (ms: number | undefined) => (ms === undefined ? '' : `${((ms * 1000) / Math.max(1, f.requests)).toFixed(0)} us`);
  const cpu = f.cpuMs === undefined ? '' : `   cpu/req: load ${perReq(f.cpuMs)}, gateway ${perReq(f.gatewayCpuMs)}, backend ${perReq(f.backendCpuMs)}`;
  const err = f.firstError ? `   first error: ${f.firstError}` : '';
  return `${name.padEnd(30)} ${f.perSecond.toFixed(0).padStart(6)} /s   p50 ${f.p50.toFixed(2).padStart(7)} ms   p99 ${f.p99.toFixed(2).padStart(7)} ms   n=${f.requests} errors=${f.errors}${cpu}${err}${f.load ? `   [${f.load}]` : ''}`;
}

async function main(): Promise<void> {
  const dbName = `bench_wallet_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${dbName}`);
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${dbName}`;
  let stack: Stack | undefined;
  try {
    buildBundles(['backend', 'gateway']);
    stack = await startStack(dbUrl.toString());
    const tokens = await signUp(stack.gateway);
    const productId = await seedProduct(dbUrl.toString());
    const auth = (i: number) => ({ authorization: `Bearer ${tokens[i] ?? ''}` });
    const get: RequestTemplate[] = tokens.map((_, i) => ({ method: 'GET', path: '/api/v1/user/wallet', headers: auth(i) }));
    const buyBody = JSON.stringify({ product_id: String(productId) });
    const buy: RequestTemplate[] = tokens.map((_, i) => ({
      method: 'POST',
      path: '/api/v1/user/wallet',
      headers: { ...auth(i), 'content-type': 'application/json' },
      body: buyBody,
      uniqueHeader: 'idempotency-key',
    }));
    const s = stack;
    // Warm-up (not reported): long enough for V8 to have optimised the hot paths of both services.
    await measured(s, { mode: 'closed', seconds: warmupSeconds, templates: get, expectStatus: 200 });
    await measured(s, { mode: 'closed', seconds: warmupSeconds, templates: buy, expectStatus: 200 });

    // Rounds alternate the HTTP runs with pgbench (the servers idle meanwhile; their pool of
    // DB_POOL_MAX leaves max_connections room), so each ratio compares runs taken under about the
    // same load from whatever else shares the machine; the median ratio is the headline.
    const lines: string[] = [];
    const ratios: number[] = [];
    const buys: number[] = [];
    const buyP99s: number[] = [];
    const gets: number[] = [];
    const getP99s: number[] = [];
    const pgbenchRates: number[] = [];
    const pgbenchP99s: number[] = [];
    // Every run, ours and pgbench's, starts on vacuumed wallet rows (pgbench itself vacuums before
    // its standard runs): a buy rewrites its account's segment and benefit rows, and 10,000 dead
    // versions of 50 rows left by one run would otherwise tax the next run's reads.
    const vacuum = () => admin(`vacuum wallet_segments, benefits`, dbUrl.toString());
    for (let round = 1; round <= rounds; round += 1) {
      await vacuum();
      const getRun = await measured(s, { mode: 'closed', seconds, templates: get, expectStatus: 200 });
      await vacuum();
      const buyRun = await measured(s, { mode: 'closed', seconds, templates: buy, expectStatus: 200 });
      const load = loadLine();
      await vacuum();
      const bench: Row = { ...pgbench(dbUrl.toString(), pgbenchSpendStatement(root), productId, connections, seconds), load };
      ratios.push(buyRun.perSecond / bench.perSecond);
      buys.push(buyRun.perSecond);
      buyP99s.push(buyRun.p99);
      gets.push(getRun.perSecond);
      getP99s.push(getRun.p99);
      pgbenchRates.push(bench.perSecond);
      pgbenchP99s.push(bench.p99);
      lines.push(
        row(`#${round} wallet.get (closed loop)`, getRun),
        row(`#${round} wallet.buy (closed loop)`, buyRun),
        row(`#${round} pgbench: buy statement`, bench),
        `#${round} wallet.buy / pgbench = ${(((buyRun.perSecond / bench.perSecond) * 100)).toFixed(1)} %`,
      );
    }
    const pacedRate = Math.max(1, Math.round(median(buys) / 2));
    await vacuum();
    const paced = await measured(s, { mode: 'paced', rate: pacedRate, seconds, templates: buy, expectStatus: 200 });
    await stopAll(s.children);
    const classic: Row = { ...pgbench(dbUrl.toString(), PGBENCH_SPEND_CLASSIC, productId, connections, seconds), load: loadLine() };

    const audit = runAudit(dbUrl.toString());
    process.stdout.write(
      [
        `wallet bench: ${connections} connections, ${seconds} s per run, ${rounds} rounds, bundles with NODE_ENV=production LOG_LEVEL=warn, DB_POOL_MAX=${poolMax}, PostgreSQL ${serverUrl.replace(/\/\/.*@/, '//')}`,
        ...lines,
        row(`wallet.buy paced ${pacedRate}/s (half)`, paced),
        row('pgbench: old 11-stmt txn', classic),
        `median wallet.buy / pgbench (same statement) = ${(median(ratios) * 100).toFixed(1)} %   (target >= 50 %, buy p99 < 20 ms, get >= 4000/s)`,
        `closed loop at ${connections} connections: mean latency = ${connections} / throughput (Little's law), so a p99 under 20 ms needs more than ${Math.round(connections / 0.02)}/s; pgbench alone did ${Math.round(median(pgbenchRates))}/s (p99 ${median(pgbenchP99s).toFixed(1)} ms)`,
        `ledger audit after the runs: ${audit.clean ? 'clean' : `PROBLEMS\n${audit.output}`}`,
        '',
      ].join('\n'),
    );
    const pgbenchPeer = (value: number) => ({ name: 'pgbench, same statement', value });
    printResult({
      bench: 'wallet',
      figures: [
        { name: 'wallet.get (median of rounds)', value: median(gets), unit: '/s', target: { on: 'value', op: '>=', limit: 4000 } },
        { name: 'wallet.get p99 (closed loop)', value: median(getP99s), unit: 'ms' },
        { name: 'wallet.buy (median of rounds)', value: median(buys), unit: '/s', target: { on: 'ratio', op: '>=', limit: 0.5 }, peer: pgbenchPeer(median(pgbenchRates)), ratio: median(ratios) },
        { name: 'wallet.buy p99 (closed loop)', value: median(buyP99s), unit: 'ms', target: { on: 'value', op: '<=', limit: 20 }, peer: pgbenchPeer(median(pgbenchP99s)) },
        { name: `wallet.buy p99 (paced ${pacedRate}/s)`, value: paced.p99, unit: 'ms', target: { on: 'value', op: '<=', limit: 20 } },
        { name: 'ledger audit problems', value: audit.problems, unit: '', target: { on: 'value', op: '<=', limit: 0 } },
      ],
      context: `${connections} connections, ${seconds} s x ${rounds} rounds, DB_POOL_MAX=${poolMax}; buy ratio is the median of per-round ratios; ${loadLine()}`,
    });
  } finally {
    if (stack) await stopAll(stack.children);
    await admin(`drop database if exists ${dbName} with (force)`);
  }
}

await main();
