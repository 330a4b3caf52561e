/**
 * Overload bench: is overload served rather than dropped? One gateway and backend (their esbuild
 * bundles, NODE_ENV=production) on a fresh database, card orders against the provider emulator.
 * First a sweep finds the concurrency that saturates the stack on wallet.buy (closed loop at 2, 4,
 * 8, ... BENCH_OVERLOAD_SWEEP_MAX connections; the smallest whose throughput is within 10 % of the
 * sweep's best). Then wallet.buy and card order creation each run at 1x, 2x and 4x that
 * concurrency, one request in flight per connection, every connection its own buyer, and the bench
 * prints, per run, throughput, p99 of the answers that worked, and every other answer by kind
 * (`<status> <error code>`). A request shed at the gateway's door (`503 overloaded`, before any
 * work) is counted apart; any other failure is one that began work and did not finish, and the
 * target for those is 0. A flood of BENCH_OVERLOAD_FLOOD connections (default 256) follows each
 * load's levels, with the same target.
 *
 * Run: `npm run overload -w tools/bench` (BENCH_SECONDS per run, default 8; BENCH_DB_POOL_MAX,
 * default 8 as in the wallet bench; BENCH_OVERLOAD_SWEEP_MAX, default 64; extra gateway settings
 * such as GATEWAY_MAX_IN_FLIGHT pass through as BENCH_GATEWAY_MAX_IN_FLIGHT).
 */
import { type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { adminQuery, ensureDevCerts } from '@wordgame/testkit';
import { runLoad } from './load/run.js';
import type { LoadFigures, RequestTemplate } from './load/spec.js';
import { printResult, type Figure } from './report/result.js';
import { buildBundles, freePort, gatewayEnv, loadLine, quietBackendEnv, root, startBundle, stopAll, waitHealthy } from './services.js';
import { confirmEmails, seedCardProduct, seedProduct, signUp } from './wallet-seed.js';

const serverUrl = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const seconds = Number(process.env['BENCH_SECONDS'] ?? 8);
const poolMax = process.env['BENCH_DB_POOL_MAX'] ?? '8';
const sweepMax = Number(process.env['BENCH_OVERLOAD_SWEEP_MAX'] ?? 64);
const doorLimit = process.env['BENCH_GATEWAY_MAX_IN_FLIGHT'];
const SHOP = { id: 'overload-shop', secretKey: 'overload-shop-secret' };
const LEVELS = [1, 2, 4] as const;
/** A flood beyond the levels: this many connections at once (every one its own buyer). */
const flood = Number(process.env['BENCH_OVERLOAD_FLOOD'] ?? 256);
/** The answer the door gives a request it sheds. */
const SHED = '503 overloaded';

type Load = 'buy' | 'order';
const EXPECT: Record<Load, number> = { buy: 200, order: 201 };

interface Stack {
  children: ChildProcess[];
  port: number;
  templates: (load: Load, connections: number) => RequestTemplate[];
}

async function startStack(dbUrl: string, provider: string, accounts: number): Promise<Stack> {
  const [backendPort, httpPort, botlinkPort, internalPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const backend = startBundle('backend', {
    ...quietBackendEnv(dbUrl, backendPort, internalPort, poolMax),
    BACKEND_YOOKASSA_API_URL: `${provider}/v3`,
    BACKEND_YOOKASSA_SHOPS: `direct:${SHOP.id}:${SHOP.secretKey}:test`,
    PUBLIC_BASE_URL: `http://127.0.0.1:${httpPort}`,
  });
  await waitHealthy(`http://127.0.0.1:${backendPort}/health`);
  const certs = ensureDevCerts(path.join(root, '.data/certs'));
  const gateway = startBundle('gateway', {
    ...gatewayEnv(`http://127.0.0.1:${backendPort}`, { http: httpPort, botlink: botlinkPort, internal: internalPort }, certs),
    ...(doorLimit === undefined ? {} : { GATEWAY_MAX_IN_FLIGHT: doorLimit }),
  });
  const children = [backend, gateway];
  try {
    await waitHealthy(`http://127.0.0.1:${httpPort}/health`);
    const tokens = await signUp(`http://127.0.0.1:${httpPort}`, accounts);
    const productId = String(await seedProduct(dbUrl));
    const cardProductId = String(await seedCardProduct(dbUrl));
    await confirmEmails(dbUrl);
    const auth = (t: string) => ({ authorization: `Bearer ${t}`, 'content-type': 'application/json' });
    return {
      children,
      port: httpPort,
      templates: (load, connections) =>
        tokens.slice(0, connections).map((t) =>
          load === 'buy'
            ? {
                method: 'POST',
                path: '/api/v1/user/wallet',
                headers: auth(t),
                body: JSON.stringify({ product_id: productId }),
                uniqueHeader: 'idempotency-key',
              }
            : {
                method: 'POST',
                path: '/api/v1/user/wallet/orders',
                headers: auth(t),
                body: JSON.stringify({ product_id: cardProductId, rail: 'card' }),
              },
        ),
    };
  } catch (err: unknown) {
    await stopAll(children);
    throw err;
  }
}

function run(stack: Stack, load: Load, connections: number, secs: number): Promise<LoadFigures> {
  return runLoad({
    mode: 'closed',
    seconds: secs,
    templates: stack.templates(load, connections),
    expectStatus: EXPECT[load],
    host: '127.0.0.1',
    port: stack.port,
    uniquePrefix: randomBytes(4).toString('hex'),
  });
}

/** Failures that began work: every answer but the expected one and the door's shed. */
const failedAfterWork = (f: LoadFigures) => Object.entries(f.failures).reduce((n, [kind, count]) => (kind === SHED ? n : n + count), 0);
const kinds = (f: LoadFigures) =>
  Object.keys(f.failures).length === 0
    ? 'none'
    : Object.entries(f.failures)
        .map(([kind, count]) => `${kind} x${count}`)
        .join(', ');

async function main(): Promise<void> {
  buildBundles(['backend', 'gateway', 'tools/provider-emulator']);
  const name = `bench_overload_${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const providerPort = await freePort();
  const providerProcess = startBundle('tools/provider-emulator', {
    PROVIDER_EMULATOR_PORT: String(providerPort),
    PROVIDER_EMULATOR_SHOPS: `${SHOP.id}:${SHOP.secretKey}:test`,
  });
  let stack: Stack | undefined;
  try {
    await waitHealthy(`http://127.0.0.1:${providerPort}/_control/health`);
    stack = await startStack(url.toString(), `http://127.0.0.1:${providerPort}`, Math.max(4 * sweepMax, flood));
    const out: string[] = [`overload bench: pool ${poolMax}, door ${doorLimit ?? 'default'}, ${seconds} s per run [${loadLine()}]`];
    const say = (line: string) => {
      out.push(line);
      process.stderr.write(`${line}\n`);
    };
    await run(stack, 'buy', 16, 5); // warm-up, not reported
    await run(stack, 'order', 16, 5);
    const sweep: Array<{ connections: number; perSecond: number }> = [];
    for (let c = 2; c <= sweepMax; c *= 2) {
      const f = await run(stack, 'buy', c, 3);
      sweep.push({ connections: c, perSecond: f.perSecond });
      say(`sweep buy at ${String(c).padStart(3)}: ${f.perSecond.toFixed(0)}/s p99 ${f.p99.toFixed(1)} ms failures ${kinds(f)}`);
    }
    const best = Math.max(...sweep.map((s) => s.perSecond));
    const saturating = sweep.find((s) => s.perSecond >= 0.9 * best)?.connections ?? sweepMax;
    say(`saturating concurrency: ${saturating} connections (best ${best.toFixed(0)} buys/s)`);
    const figures: Figure[] = [{ name: 'concurrency that saturates wallet.buy', value: saturating, unit: 'connections' }];
    for (const load of ['buy', 'order'] as const) {
      for (const [i, level] of [...LEVELS, flood / saturating].entries()) {
        const connections = Math.round(level * saturating);
        const f = await run(stack, load, connections, seconds);
        const failed = failedAfterWork(f);
        const levelName = i < LEVELS.length ? `${level}x` : `a flood of ${connections}`;
        say(
          `${load} ${levelName} (${String(connections).padStart(3)} conn): ${f.perSecond.toFixed(0)}/s  p99 ok ${f.p99Ok.toFixed(1)} ms  ` +
            `shed at the door ${f.failures[SHED] ?? 0}  failed after work began ${failed}  answers by kind: ${kinds(f)}  [${loadLine()}]`,
        );
        const label = load === 'buy' ? 'wallet.buy' : 'card order creation';
        figures.push(
          {
            name: `${label} at ${levelName}: failed after work began`,
            value: failed,
            unit: 'requests',
            target: { on: 'value', op: '<=', limit: 0 },
          },
          { name: `${label} at ${levelName}: p99 of answers that worked`, value: f.p99Ok, unit: 'ms' },
          { name: `${label} at ${levelName}: shed at the door`, value: f.failures[SHED] ?? 0, unit: 'requests' },
        );
      }
    }
    process.stdout.write(`${out.join('\n')}\n`);
    printResult({ bench: 'overload', figures, context: `pool ${poolMax}, ${seconds} s per run, one buyer per connection; ${loadLine()}` });
  } finally {
    await stopAll([...(stack?.children ?? []), providerProcess]);
    await adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
  }
}

await main();
