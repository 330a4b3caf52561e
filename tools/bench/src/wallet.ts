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
 *
 * Peers measured in the same run, so every wallet figure is a ratio: wallet.get against pgbench
 * running wallet.get's own statement (closed loop, the same connections); the paced buy against
 * pgbench paced at the same rate (`-R`); and each HTTP run against the same run on a second stack
 * started with the fast paths off (GATEWAY_FAST_PATH=false, BACKEND_FAST_PATH=false: every call
 * through connect-node), which shows whether libs/h2-unary still pays for itself.
 */
import { type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { adminQuery, ensureDevCerts } from '@wordgame/testkit';
import { runLoad } from './load/run.js';
import type { LoadFigures, LoadSpec, RequestTemplate } from './load/spec.js';
import { cpuMsOf, pgbench, pgbenchReadStatement, pgbenchSpendStatement, PGBENCH_SPEND_CLASSIC } from './wallet-pgbench.js';
import { printResult } from './report/result.js';
import {
  buildBundles,
  freePort,
  gatewayEnv,
  quietBackendEnv,
  loadLine,
  root,
  runAudit,
  startBundle,
  stopAll,
  waitHealthy,
} from './services.js';
import { median } from './stats.js';
import { seedProduct, signUp } from './wallet-seed.js';

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

/** A gateway and backend on `dbUrl`; `fast` false starts both with their fast paths off. */
async function startStack(dbUrl: string, fast: boolean): Promise<Stack> {
  const [backendPort, httpPort, botlinkPort, internalPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const certs = ensureDevCerts(path.join(root, '.data/certs'));
  const backend = startBundle('backend', {
    ...quietBackendEnv(dbUrl, backendPort, internalPort, poolMax),
    BACKEND_FAST_PATH: String(fast),
  });
  await waitHealthy(`http://127.0.0.1:${backendPort}/health`);
  const gateway = startBundle('gateway', {
    ...gatewayEnv(`http://127.0.0.1:${backendPort}`, { http: httpPort, botlink: botlinkPort, internal: internalPort }, certs),
    GATEWAY_FAST_PATH: String(fast),
  });
  await waitHealthy(`http://127.0.0.1:${httpPort}/health`);
  return { children: [backend, gateway], gateway: `http://127.0.0.1:${httpPort}`, port: httpPort };
}

/** Runs one load spec while measuring the CPU the gateway and backend spent on it. */
async function measured(
  stack: Stack,
  spec: Omit<LoadSpec, 'host' | 'port' | 'uniquePrefix'>,
): Promise<LoadFigures & { gatewayCpuMs: number; backendCpuMs: number; load: string }> {
  const [backend, gateway] = stack.children.map((c) => c.pid ?? 0) as [number, number];
  const before = [cpuMsOf(gateway), cpuMsOf(backend)];
  const figures = await runLoad({ ...spec, host: '127.0.0.1', port: stack.port, uniquePrefix: randomBytes(4).toString('hex') });
  return {
    ...figures,
    gatewayCpuMs: cpuMsOf(gateway) - (before[0] ?? 0),
    backendCpuMs: cpuMsOf(backend) - (before[1] ?? 0),
    load: loadLine(),
  };
}

type Row = Pick<LoadFigures, 'perSecond' | 'p50' | 'p99' | 'requests' | 'errors'> &
  Partial<LoadFigures & { gatewayCpuMs: number; backendCpuMs: number; load: string }>;

function row(name: string, f: Row): string {
  const perReq = (ms: number | undefined) => (ms === undefined ? '' : `${((ms * 1000) / Math.max(1, f.requests)).toFixed(0)} us`);
  const cpu =
    f.cpuMs === undefined
      ? ''
      : `   cpu/req: load ${perReq(f.cpuMs)}, gateway ${perReq(f.gatewayCpuMs)}, backend ${perReq(f.backendCpuMs)}`;
  const err = f.firstError ? `   first error: ${f.firstError}` : '';
  return `${name.padEnd(30)} ${f.perSecond.toFixed(0).padStart(6)} /s   p50 ${f.p50.toFixed(2).padStart(7)} ms   p99 ${f.p99.toFixed(2).padStart(7)} ms   n=${f.requests} errors=${f.errors}${cpu}${err}${f.load ? `   [${f.load}]` : ''}`;
}

async function main(): Promise<void> {
  const dbName = `bench_wallet_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${dbName}`);
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${dbName}`;
  const stacks: Stack[] = [];
  try {
    buildBundles(['backend', 'gateway']);
    const s = await startStack(dbUrl.toString(), true);
    stacks.push(s);
    const off = await startStack(dbUrl.toString(), false);
    stacks.push(off);
    const tokens = await signUp(s.gateway, connections);
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
    // Warm-up (not reported): long enough for V8 to have optimised the hot paths of both services.
    for (const stack of stacks) {
      await measured(stack, { mode: 'closed', seconds: warmupSeconds, templates: get, expectStatus: 200 });
      await measured(stack, { mode: 'closed', seconds: warmupSeconds, templates: buy, expectStatus: 200 });
    }

    // Rounds alternate the HTTP runs (fast paths on, then off) with pgbench (the servers idle
    // meanwhile; their pools of DB_POOL_MAX leave max_connections room), so each ratio compares
    // runs taken under about the same load from whatever else shares the machine; the median
    // of the per-round ratios is the headline.
    const lines: string[] = [];
    const series = new Map<string, number[]>();
    const add = (name: string, value: number) => series.set(name, [...(series.get(name) ?? []), value]);
    const mid = (name: string) => median(series.get(name) ?? []);
    // Every run, ours and pgbench's, starts on vacuumed wallet rows (pgbench itself vacuums before
    // its standard runs): a buy rewrites its account's segment and benefit rows, and 10,000 dead
    // versions of 50 rows left by one run would otherwise tax the next run's reads.
    const vacuum = () => admin(`vacuum wallet_segments, benefits`, dbUrl.toString());
    const closed = async (stack: Stack, templates: RequestTemplate[]) => {
      await vacuum();
      return measured(stack, { mode: 'closed', seconds, templates, expectStatus: 200 });
    };
    const peer = async (script: string, rate?: number): Promise<Row> => {
      await vacuum();
      return { ...pgbench(dbUrl.toString(), script, productId, connections, seconds, rate), load: loadLine() };
    };
    for (let round = 1; round <= rounds; round += 1) {
      const getRun = await closed(s, get);
      const getOff = await closed(off, get);
      const getPeer = await peer(pgbenchReadStatement(root));
      const buyRun = await closed(s, buy);
      const buyOff = await closed(off, buy);
      const bench = await peer(pgbenchSpendStatement(root));
      add('get', getRun.perSecond);
      add('getP99', getRun.p99);
      add('buy', buyRun.perSecond);
      add('buyP99', buyRun.p99);
      add('pgGet', getPeer.perSecond);
      add('pgGetP99', getPeer.p99);
      add('pgBuy', bench.perSecond);
      add('pgBuyP99', bench.p99);
      add('getRatio', getRun.perSecond / getPeer.perSecond);
      add('getP99Ratio', getRun.p99 / getPeer.p99);
      add('buyRatio', buyRun.perSecond / bench.perSecond);
      add('buyP99Ratio', buyRun.p99 / bench.p99);
      add('getFast', getRun.perSecond / getOff.perSecond);
      add('getFastP99', getRun.p99 / getOff.p99);
      add('buyFast', buyRun.perSecond / buyOff.perSecond);
      add('buyFastP99', buyRun.p99 / buyOff.p99);
      lines.push(
        row(`#${round} wallet.get (closed loop)`, getRun),
        row(`#${round} wallet.get, fast paths off`, getOff),
        row(`#${round} pgbench: get statement`, getPeer),
        row(`#${round} wallet.buy (closed loop)`, buyRun),
        row(`#${round} wallet.buy, fast paths off`, buyOff),
        row(`#${round} pgbench: buy statement`, bench),
        `#${round} wallet.buy / pgbench = ${((buyRun.perSecond / bench.perSecond) * 100).toFixed(1)} %`,
      );
    }
    const pacedRate = Math.max(1, Math.round(mid('buy') / 2));
    await vacuum();
    const paced = await measured(s, { mode: 'paced', rate: pacedRate, seconds, templates: buy, expectStatus: 200 });
    await vacuum();
    const pacedOff = await measured(off, { mode: 'paced', rate: pacedRate, seconds, templates: buy, expectStatus: 200 });
    const pacedPeer = await peer(pgbenchSpendStatement(root), pacedRate);
    await stopAll(stacks.flatMap((x) => x.children));
    const classic: Row = { ...pgbench(dbUrl.toString(), PGBENCH_SPEND_CLASSIC, productId, connections, seconds), load: loadLine() };

    const pct = (r: number) => `${(r * 100).toFixed(1)} %`;
    const x = (r: number) => `${r.toFixed(2)}x`;
    const audit = runAudit(dbUrl.toString());
    process.stdout.write(
      [
        `wallet bench: ${connections} connections, ${seconds} s per run, ${rounds} rounds, bundles with NODE_ENV=production LOG_LEVEL=warn, DB_POOL_MAX=${poolMax}, PostgreSQL ${serverUrl.replace(/\/\/.*@/, '//')}`,
        ...lines,
        row(`wallet.buy paced ${pacedRate}/s (half)`, paced),
        row(`wallet.buy paced, fast paths off`, pacedOff),
        row(`pgbench: buy paced ${pacedRate}/s (-R)`, pacedPeer),
        row('pgbench: old 11-stmt txn', classic),
        'ours / pgbench (median of per-round ratios; the paced run is one run):',
        `  wallet.get  throughput ${pct(mid('getRatio'))}   p99 ${x(mid('getP99Ratio'))}   (pgbench: wallet.get's statement, closed loop, ${connections} clients)`,
        `  wallet.buy  throughput ${pct(mid('buyRatio'))}   p99 ${x(mid('buyP99Ratio'))}   (pgbench: wallet.buy's statement, closed loop, ${connections} clients; target >= 50 %)`,
        `  wallet.buy paced ${pacedRate}/s  throughput ${pct(paced.perSecond / pacedPeer.perSecond)}   p99 ${x(paced.p99 / pacedPeer.p99)}   (pgbench -R ${pacedRate})`,
        'fast paths on / off (median of per-round ratios; > 100 % throughput and < 1.00x p99 mean the fast paths pay):',
        `  wallet.get  throughput ${pct(mid('getFast'))}   p99 ${x(mid('getFastP99'))}`,
        `  wallet.buy  throughput ${pct(mid('buyFast'))}   p99 ${x(mid('buyFastP99'))}`,
        `  wallet.buy paced ${pacedRate}/s  p99 ${x(paced.p99 / pacedOff.p99)}`,
        `closed loop at ${connections} connections: mean latency = ${connections} / throughput (Little's law), so a p99 under 20 ms needs more than ${Math.round(connections / 0.02)}/s; pgbench alone did ${Math.round(mid('pgBuy'))}/s (p99 ${mid('pgBuyP99').toFixed(1)} ms)`,
        `ledger audit after the runs: ${audit.clean ? 'clean' : `PROBLEMS\n${audit.output}`}`,
        '',
      ].join('\n'),
    );
    const pgbenchPeer = (value: number) => ({ name: 'pgbench, same statement', value });
    const offPeer = (value: number) => ({ name: 'fast paths off', value });
    printResult({
      bench: 'wallet',
      figures: [
        {
          name: 'wallet.get (median of rounds)',
          value: mid('get'),
          unit: '/s',
          target: { on: 'value', op: '>=', limit: 4000 },
          peer: pgbenchPeer(mid('pgGet')),
          ratio: mid('getRatio'),
        },
        {
          name: 'wallet.get p99 (closed loop)',
          value: mid('getP99'),
          unit: 'ms',
          peer: pgbenchPeer(mid('pgGetP99')),
          ratio: mid('getP99Ratio'),
        },
        {
          name: 'wallet.buy (median of rounds)',
          value: mid('buy'),
          unit: '/s',
          target: { on: 'ratio', op: '>=', limit: 0.5 },
          peer: pgbenchPeer(mid('pgBuy')),
          ratio: mid('buyRatio'),
        },
        {
          name: 'wallet.buy p99 (closed loop)',
          value: mid('buyP99'),
          unit: 'ms',
          target: { on: 'value', op: '<=', limit: 20 },
          peer: pgbenchPeer(mid('pgBuyP99')),
          ratio: mid('buyP99Ratio'),
        },
        {
          name: `wallet.buy p99 (paced ${pacedRate}/s)`,
          value: paced.p99,
          unit: 'ms',
          target: { on: 'value', op: '<=', limit: 20 },
          peer: { name: `pgbench -R ${pacedRate}`, value: pacedPeer.p99 },
          ratio: paced.p99 / pacedPeer.p99,
        },
        {
          name: 'wallet.get, fast paths on/off',
          value: mid('get'),
          unit: '/s',
          peer: offPeer(mid('get') / mid('getFast')),
          ratio: mid('getFast'),
        },
        {
          name: 'wallet.buy, fast paths on/off',
          value: mid('buy'),
          unit: '/s',
          peer: offPeer(mid('buy') / mid('buyFast')),
          ratio: mid('buyFast'),
        },
        { name: 'ledger audit problems', value: audit.problems, unit: '', target: { on: 'value', op: '<=', limit: 0 } },
      ],
      context: `${connections} connections, ${seconds} s x ${rounds} rounds, DB_POOL_MAX=${poolMax}; ratios are medians of per-round ratios; ${loadLine()}`,
    });
  } finally {
    await stopAll(stacks.flatMap((x) => x.children));
    await admin(`drop database if exists ${dbName} with (force)`);
  }
}

await main();
