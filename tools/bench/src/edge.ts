/**
 * Edge bench (issue 39, target 1): what the second hop costs. wallet.get and wallet.buy through our
 * gateway -> backend -> PostgreSQL (their esbuild bundles, NODE_ENV=production) against the
 * one-process peer (src/peer-server.ts: node:http + pg, the very READ_WALLET and BUY_STATEMENT
 * the backend runs, prepared, sessions resolved once and cached) on the same database, the same
 * 50 signed-up buyers and the same pool size, in alternating rounds of the same closed-loop load.
 * Per request it reads from /proc the CPU of the Node processes (gateway + backend, or the peer)
 * and of the PostgreSQL backends serving each side's pool (found by application_name), and prints
 * the median of per-round ratios ours / peer. Targets: Node CPU per get <= 3x the peer's, per buy
 * <= 2x, PostgreSQL CPU per buy <= 1.1x.
 *
 * Run: `npm run edge -w tools/bench` (BENCH_ROUNDS, default 3; BENCH_SECONDS per run, default 8;
 * BENCH_DB_POOL_MAX, default 8; BENCH_CONNECTIONS, default 50).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { adminQuery, ensureDevCerts } from '@wordgame/testkit';
import { runLoad } from './load/run.js';
import type { RequestTemplate } from './load/spec.js';
import { printResult, type Figure } from './report/result.js';
import { buildBundles, freePort, gatewayEnv, loadLine, quietBackendEnv, root, startBundle, stopAll, waitHealthy } from './services.js';
import { median } from './stats.js';
import { backendStatement, BUY_STATEMENT_FILE, cpuMsOf, READ_WALLET_FILE } from './wallet-pgbench.js';
import { seedProduct, signUp, walletTemplates } from './wallet-seed.js';

const serverUrl = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
const seconds = Number(process.env['BENCH_SECONDS'] ?? 8);
const poolMax = process.env['BENCH_DB_POOL_MAX'] ?? '8';
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const OURS = 'bench-edge-ours';
const PEER = 'bench-edge-peer';
type Load = 'get' | 'buy';

interface Side {
  name: string;
  /** The Node processes whose CPU counts for this side. */
  pids: number[];
  /** application_name of this side's PostgreSQL connections. */
  appName: string;
  port: number;
}

interface Sample {
  perSecond: number;
  nodeUs: number;
  pgUs: number;
  errors: number;
}

const withAppName = (url: string, name: string) => {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
};

/** CPU (ms) of the PostgreSQL backends serving `appName` now, by pid. */
async function pgCpu(admin: pg.Client, appName: string): Promise<Map<number, number>> {
  const { rows } = await admin.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [appName]);
  const out = new Map<number, number>();
  for (const { pid } of rows) if (existsSync(`/proc/${pid}/stat`)) out.set(pid, cpuMsOf(pid));
  return out;
}

async function measure(admin: pg.Client, side: Side, templates: RequestTemplate[], load: Load, secs: number): Promise<Sample> {
  const node0 = side.pids.map(cpuMsOf);
  const pg0 = await pgCpu(admin, side.appName);
  const f = await runLoad({
    mode: 'closed',
    seconds: secs,
    templates,
    expectStatus: 200,
    host: '127.0.0.1',
    port: side.port,
    uniquePrefix: `${load}-${randomBytes(4).toString('hex')}`,
  });
  const node = side.pids.reduce((n, pid, i) => n + cpuMsOf(pid) - (node0[i] ?? 0), 0);
  const pg1 = await pgCpu(admin, side.appName);
  let pgMs = 0;
  for (const [pid, ms] of pg1) pgMs += ms - (pg0.get(pid) ?? 0);
  const per = (ms: number) => (ms * 1000) / Math.max(1, f.requests - f.errors);
  return { perSecond: f.perSecond, nodeUs: per(node), pgUs: per(pgMs), errors: f.errors };
}

function startPeer(dbUrl: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--no-warnings', path.join(root, 'tools/bench/src/peer-server.ts')], {
    cwd: root,
    env: {
      PATH: process.env['PATH'] ?? '',
      NODE_ENV: 'production',
      DATABASE_URL: withAppName(dbUrl, PEER),
      PEER_PORT: String(port),
      PEER_POOL_MAX: poolMax,
      PEER_READ_SQL: backendStatement(root, READ_WALLET_FILE, 'READ_WALLET'),
      PEER_BUY_SQL: backendStatement(root, BUY_STATEMENT_FILE, 'BUY_STATEMENT'),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the peer exited (${code}) before listening`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', () => resolve(child));
  });
}

async function main(): Promise<void> {
  buildBundles(['backend', 'gateway']);
  const name = `bench_edge_${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const dbUrl = url.toString();
  const children: ChildProcess[] = [];
  const admin = new pg.Client({ connectionString: dbUrl });
  try {
    const [backendPort, httpPort, botlinkPort, internalPort, peerPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const backend = startBundle('backend', quietBackendEnv(withAppName(dbUrl, OURS), backendPort, internalPort, poolMax));
    children.push(backend);
    await waitHealthy(`http://127.0.0.1:${backendPort}/health`);
    const certs = ensureDevCerts(path.join(root, '.data/certs'));
    const gateway = startBundle(
      'gateway',
      gatewayEnv(`http://127.0.0.1:${backendPort}`, { http: httpPort, botlink: botlinkPort, internal: internalPort }, certs),
    );
    children.push(gateway);
    await waitHealthy(`http://127.0.0.1:${httpPort}/health`);
    const tokens = await signUp(`http://127.0.0.1:${httpPort}`, connections);
    const productId = String(await seedProduct(dbUrl));
    children.push(await startPeer(dbUrl, peerPort));
    await admin.connect();
    const templates = walletTemplates(tokens, productId);
    const sides: Side[] = [
      { name: 'ours (gateway + backend)', pids: [gateway.pid ?? 0, backend.pid ?? 0], appName: OURS, port: httpPort },
      { name: 'one-process peer', pids: [children[2]?.pid ?? 0], appName: PEER, port: peerPort },
    ];
    for (const side of sides) for (const load of ['get', 'buy'] as const) await measure(admin, side, templates[load], load, 5); // warm-up
    const samples = new Map<string, Sample[]>();
    for (let round = 0; round < rounds; round += 1) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        for (const load of ['get', 'buy'] as const) {
          const s = await measure(admin, side, templates[load], load, seconds);
          samples.set(`${load} ${side.appName}`, [...(samples.get(`${load} ${side.appName}`) ?? []), s]);
          process.stderr.write(
            `#${round + 1} ${load} ${side.name.padEnd(26)} ${s.perSecond.toFixed(0).padStart(6)}/s  Node ${s.nodeUs.toFixed(0)} us  PostgreSQL ${s.pgUs.toFixed(0)} us  errors ${s.errors}  [${loadLine()}]\n`,
          );
        }
      }
    }
    const figures: Figure[] = [];
    const lines: string[] = [`edge bench: ${connections} connections, pool ${poolMax}, ${rounds} rounds of ${seconds} s (alternating)`];
    const pair = (load: Load) => [samples.get(`${load} ${OURS}`) ?? [], samples.get(`${load} ${PEER}`) ?? []] as const;
    const add = (load: Load, what: 'nodeUs' | 'pgUs', label: string, limit?: number) => {
      const [ours, peer] = pair(load);
      const ratio = median(ours.map((s, i) => s[what] / (peer[i]?.[what] ?? Number.NaN)));
      const value = median(ours.map((s) => s[what]));
      const peerValue = median(peer.map((s) => s[what]));
      lines.push(
        `  ${label}: ours ${value.toFixed(0)} us, peer ${peerValue.toFixed(0)} us, ratio ${ratio.toFixed(2)}x${limit === undefined ? '' : ` (target <= ${limit}x)`}`,
      );
      figures.push({
        name: label,
        value,
        unit: 'us',
        peer: { name: 'one-process peer', value: peerValue },
        ratio,
        ...(limit === undefined ? {} : { target: { on: 'ratio' as const, op: '<=' as const, limit } }),
      });
    };
    add('get', 'nodeUs', 'wallet.get, Node CPU per get', 3);
    add('buy', 'nodeUs', 'wallet.buy, Node CPU per buy', 2);
    add('buy', 'pgUs', 'wallet.buy, PostgreSQL CPU per buy', 1.1);
    add('get', 'pgUs', 'wallet.get, PostgreSQL CPU per get');
    const errors = [...samples.values()].flat().reduce((n, s) => n + s.errors, 0);
    figures.push({ name: 'errors', value: errors, unit: 'requests', target: { on: 'value', op: '<=', limit: 0 } });
    process.stdout.write(`${lines.join('\n')}\n`);
    printResult({
      bench: 'edge',
      figures,
      context: `${connections} connections, pool ${poolMax}, ${rounds} rounds of ${seconds} s; ${loadLine()}`,
    });
  } finally {
    await admin.end().catch(() => undefined);
    await stopAll(children);
    await adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
  }
}

await main();
