/**
 * A/B bench: the same wallet.get, wallet.buy and order-creation load on two (or more) builds of
 * the gateway and backend, interleaved in one run, so a change is judged by a same-run ratio rather than by two
 * runs minutes apart on a machine whose speed drifts. Each build is a checkout root whose
 * `dist/apps/{backend,gateway}/main.js` are its bundles (`node tools/build/bundle.mjs apps/backend`
 * and `apps/gateway` there); each gets its own database, its own 50 accounts and product, and the
 * same closed-loop runs as the wallet bench (raw keep-alive HTTP/1.1, one request in flight per
 * connection). Rounds alternate the order of the builds; the result is each build's median and the
 * median of per-round ratios to the first build, with the CPU each process spent per request.
 *
 * `order` opens card orders (`POST /api/v1/user/wallet/orders`, rail card, for e-mail-confirmed
 * buyers) against one provider emulator all builds share.
 *
 * Run: `AB_ROOTS=<root A>,<root B> npm run ab -w tools/bench` (AB_RUNS rounds, default 5;
 * AB_SECONDS per run, default 10; AB_LOADS `get,buy,order`). A root may end in `#KEY=VALUE&...` to
 * start that build with extra environment. A base checkout: `git worktree add ../base <commit>`,
 * `npm ci` and the two bundle commands in it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { adminQuery, ensureDevCerts } from '@wordgame/testkit';
import { runLoad } from './load/run.js';
import type { RequestTemplate } from './load/spec.js';
import { buildBundles, freePort, gatewayEnv, loadLine, quietBackendEnv, root, startBundle, stopAll, waitHealthy } from './services.js';
import { median } from './stats.js';
import { cpuMsOf } from './wallet-pgbench.js';
import { confirmEmails, seedCardProduct, seedProduct, signUp, walletTemplates } from './wallet-seed.js';

const serverUrl = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const seconds = Number(process.env['AB_SECONDS'] ?? 10);
const runs = Number(process.env['AB_RUNS'] ?? 5);
type Load = 'get' | 'buy' | 'order';
const LOADS: readonly Load[] = ['get', 'buy', 'order'];
const loads = (process.env['AB_LOADS'] ?? LOADS.join(',')).split(',').map((l) => {
  const load = LOADS.find((x) => x === l);
  if (!load) throw new Error(`AB_LOADS: unknown load ${l} (known: ${LOADS.join(', ')})`);
  return load;
});
/** The status each load's requests answer when they work. */
const EXPECT: Record<Load, number> = { get: 200, buy: 200, order: 201 };
/** The card shop every build's backend uses on the shared provider emulator. */
const SHOP = { id: 'ab-shop', secretKey: 'ab-shop-secret' };
const roots = (process.env['AB_ROOTS'] ?? '').split(',').filter((r) => r !== '');
const CONNECTIONS = 50;

interface Build {
  label: string;
  children: ChildProcess[];
  port: number;
  templates: Record<Load, RequestTemplate[]>;
}

function startFrom(dir: string, app: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [path.join(dir, 'dist/apps', app, 'main.js')], {
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'production', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[${app}] ${chunk.toString()}`));
  return child;
}

/** Starts one build on its own database with 50 signed-up buyers of a 1-chip hint. */
async function startBuild(spec: string, dbUrl: string, provider: string): Promise<Build> {
  const [dir = '', extra] = spec.split('#');
  const env: Record<string, string> = extra ? Object.fromEntries(extra.split('&').map((kv) => kv.split('=') as [string, string])) : {};
  const [backendPort, httpPort, botlinkPort, internalPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const backend = startFrom(dir, 'backend', {
    ...quietBackendEnv(dbUrl, backendPort, internalPort, '8'),
    BACKEND_YOOKASSA_API_URL: `${provider}/v3`,
    BACKEND_YOOKASSA_SHOPS: `direct:${SHOP.id}:${SHOP.secretKey}:test`,
    PUBLIC_BASE_URL: `http://127.0.0.1:${httpPort}`,
    ...env,
  });
  await waitHealthy(`http://127.0.0.1:${backendPort}/health`);
  const certs = ensureDevCerts(path.join(root, '.data/certs'));
  const gateway = startFrom(dir, 'gateway', {
    ...gatewayEnv(`http://127.0.0.1:${backendPort}`, { http: httpPort, botlink: botlinkPort, internal: internalPort }, certs),
    ...env,
  });
  await waitHealthy(`http://127.0.0.1:${httpPort}/health`);
  const tokens = await signUp(`http://127.0.0.1:${httpPort}`, CONNECTIONS);
  const productId = String(await seedProduct(dbUrl));
  const cardProductId = String(await seedCardProduct(dbUrl));
  await confirmEmails(dbUrl);
  const auth = (t: string) => ({ authorization: `Bearer ${t}` });
  return {
    label: `${path.basename(dir.replace(/\/+$/, ''))}${extra ? `#${extra}` : ''}`,
    children: [backend, gateway],
    port: httpPort,
    templates: {
      ...walletTemplates(tokens, productId),
      order: tokens.map((t) => ({
        method: 'POST',
        path: '/api/v1/user/wallet/orders',
        headers: { ...auth(t), 'content-type': 'application/json' },
        body: JSON.stringify({ product_id: cardProductId, rail: 'card' }),
      })),
    },
  };
}

interface Figures {
  perSecond: number;
  gatewayUs: number;
  backendUs: number;
  errors: number;
}

async function measure(build: Build, load: Load, secs: number): Promise<Figures> {
  const [backend, gateway] = build.children.map((c) => c.pid ?? 0) as [number, number];
  const before = [cpuMsOf(gateway), cpuMsOf(backend)] as const;
  const f = await runLoad({
    mode: 'closed',
    seconds: secs,
    templates: build.templates[load],
    expectStatus: EXPECT[load],
    host: '127.0.0.1',
    port: build.port,
    uniquePrefix: randomBytes(4).toString('hex'),
  });
  const per = (ms: number) => (ms * 1000) / Math.max(1, f.requests);
  return {
    perSecond: f.perSecond,
    gatewayUs: per(cpuMsOf(gateway) - before[0]),
    backendUs: per(cpuMsOf(backend) - before[1]),
    errors: f.errors,
  };
}

async function main(): Promise<void> {
  if (roots.length < 2) throw new Error('AB_ROOTS must name at least two checkout roots (comma-separated)');
  const dbs: string[] = [];
  const builds: Build[] = [];
  buildBundles(['tools/provider-emulator']);
  const providerPort = await freePort();
  const providerProcess = startBundle('tools/provider-emulator', {
    PROVIDER_EMULATOR_PORT: String(providerPort),
    PROVIDER_EMULATOR_SHOPS: `${SHOP.id}:${SHOP.secretKey}:test`,
  });
  const provider = `http://127.0.0.1:${providerPort}`;
  try {
    await waitHealthy(`${provider}/_control/health`);
    for (const spec of roots) {
      const name = `bench_ab_${randomBytes(4).toString('hex')}`;
      await adminQuery(serverUrl, `create database ${name}`);
      dbs.push(name);
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      builds.push(await startBuild(spec, url.toString(), provider));
    }
    // Warm-up (not reported): every build's hot paths optimised before the first measured run.
    for (const b of builds) for (const load of loads) await measure(b, load, 5);
    const results = new Map<string, Figures[]>();
    const key = (b: Build, load: string) => `${load} ${b.label}`;
    const lines: string[] = [];
    for (let round = 0; round < runs; round += 1) {
      for (const b of round % 2 === 0 ? builds : [...builds].reverse()) {
        for (const load of loads) {
          const f = await measure(b, load, seconds);
          results.set(key(b, load), [...(results.get(key(b, load)) ?? []), f]);
          lines.push(
            `#${round + 1} ${load} ${b.label.padEnd(24)} ${f.perSecond.toFixed(0).padStart(6)}/s  gateway ${f.gatewayUs.toFixed(0)} us  backend ${f.backendUs.toFixed(0)} us  errors ${f.errors}  [${loadLine()}]`,
          );
          process.stderr.write(`${lines[lines.length - 1] ?? ''}\n`);
        }
      }
    }
    const first = builds[0] as Build;
    const out = [
      `A/B bench: ${builds.length} builds, ${CONNECTIONS} connections, ${seconds} s x ${runs} rounds (alternating order)`,
      ...lines,
    ];
    out.push(`median of rounds; ratio = median of per-round ratios to ${first.label}:`);
    for (const load of loads) {
      const base = results.get(key(first, load)) ?? [];
      for (const b of builds) {
        const rs = results.get(key(b, load)) ?? [];
        const ratio = (pick: (f: Figures) => number) => median(rs.map((f, i) => pick(f) / pick(base[i] ?? f)));
        out.push(
          `  ${load} ${b.label.padEnd(24)} ${median(rs.map((f) => f.perSecond)).toFixed(0)}/s (${(ratio((f) => f.perSecond) * 100).toFixed(1)} %)` +
            `  gateway ${median(rs.map((f) => f.gatewayUs)).toFixed(0)} us (${ratio((f) => f.gatewayUs).toFixed(2)}x)` +
            `  backend ${median(rs.map((f) => f.backendUs)).toFixed(0)} us (${ratio((f) => f.backendUs).toFixed(2)}x)` +
            `  errors ${rs.reduce((n, f) => n + f.errors, 0)}`,
        );
      }
    }
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    await stopAll([...builds.flatMap((b) => b.children), providerProcess]);
    for (const name of dbs) await adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
  }
}

await main();
