/**
 * Console bench: seeds 1,000,000 ledger operations (generate_series, 1,000 accounts, one year,
 * three wallets, two rails, four kinds) into a throwaway PostgreSQL database, starts the real
 * backend and gateway processes, signs an operator in, then prints p50/p95 of a filtered first
 * ledger page with totals (the whole HTTP page: gateway -> backend -> PostgreSQL -> HTML) for
 * several filters, and the peak RSS growth of the gateway and backend during full CSV exports of
 * 10,000 and 100,000 (the cap) rows — flat memory means the two peaks are about the same. The
 * gateway and backend run from their bundles (NODE_ENV=production, LOG_LEVEL=warn); every figure
 * carries the load average; `first` is the cold first request of a filter (it may roll up the
 * per-day totals of closed days, migration 0040), excluded from p50/p95. BENCH_KEEP_DB=1 keeps the seeded database for EXPLAIN ANALYZE.
 * Ends with a BENCH_RESULT line: each filter's p95 (target <= 150 ms) and, for the capped export,
 * each process's peak RSS against its idle baseline (flat: the peak within 1.25x of the baseline).
 * Run: `npm run console -w tools/bench` (or `npx tsx tools/bench/src/console.ts`).
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ensureDevCerts, TEST_RATE_LIMITS, TEST_SERVICE_TOKENS } from '@wordgame/testkit';
import { printResult, type Figure } from './report/result.js';
import { buildBundles, freePort, gatewayEnv, loadLine, root, rssKiB, startBundle, stopAll, tsx, waitFor } from './services.js';
import { percentile } from './stats.js';

const serverUrl = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROWS = Number(process.env['BENCH_ROWS'] ?? 1_000_000);
const SAMPLES = Number(process.env['BENCH_SAMPLES'] ?? 60);
const EXPORT_CAP = 100_000;
const PASSWORD = 'bench operator password';
const P95_TARGET_MS = 150;
/** Flat memory: a capped export's peak RSS stays within this factor of the idle baseline. */
const EXPORT_RSS_RATIO = 1.25;

async function query(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url, statement_timeout: 0 });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

async function seed(url: string): Promise<void> {
  await query(url, `insert into accounts (display_name) select 'bench ' || g from generate_series(1, 1000) g`);
  const t0 = Date.now();
  await query(
    url,
    `insert into ledger_operations (account_id, kind, segment, benefit_origin, rail, provider, chips_delta, money_minor, currency, hints_delta, note, created_at)
     select 1 + (g % 1000),
            k.kind,
            w.wallet,
            case when k.kind = 'purchase' and g % 4 = 0 then w.wallet end,
            r.rail, r.rail,
            case k.kind when 'spend' then -(1 + g % 50) when 'refund' then -(100 + g % 900) else 100 + g % 900 end,
            case when r.rail is not null then (case k.kind when 'refund' then -1 else 1 end) * (case when r.rail = 'telegram_stars' then 50 + g % 500 else 9900 + g % 90000 end) end,
            case when r.rail = 'telegram_stars' then 'XTR' when r.rail = 'yookassa' then 'RUB' end,
            case when k.kind = 'purchase' and g % 4 = 0 then 5 else 0 end,
            '',
            now() - (g::double precision * 31.536) * interval '1 second'
       from generate_series(1, ${ROWS}) g
       cross join lateral (select case when g % 10 < 5 then 'spend' when g % 10 < 7 then 'grant' when g % 10 < 9 then 'purchase' else 'refund' end as kind) k
       cross join lateral (select (array['direct', 'telegram', 'vk'])[1 + g % 3] as wallet) w
       cross join lateral (select case when k.kind in ('purchase', 'refund') then (case when w.wallet = 'telegram' then 'telegram_stars' else 'yookassa' end) end as rail) r`,
  );
  await query(url, 'vacuum analyze ledger_operations');
  process.stdout.write(`seeded ${ROWS} ledger operations over 365 days in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
}

async function main(): Promise<void> {
  const name = `bench_console_${randomBytes(4).toString('hex')}`;
  await query(serverUrl, `create database ${name}`);
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${name}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-console-'));
  const children: ChildProcess[] = [];
  try {
    const certs = ensureDevCerts(dir);
    const [backendPort, httpPort, botlinkPort, internalPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    buildBundles(['backend', 'gateway']);
    const backend = startBundle('backend', {
      ...TEST_SERVICE_TOKENS,
      ...TEST_RATE_LIMITS,
      DATABASE_URL: dbUrl.toString(),
      BACKEND_PORT: String(backendPort),
      BACKEND_METRICS_PORT: '0',
      BACKEND_SEED_CATALOG: 'false',
      REAPER_INTERVAL_MS: '0',
      MODERATION_LAPSE_INTERVAL_MS: '0',
      GATEWAY_INTERNAL_URL: `http://127.0.0.1:${internalPort}`,
    });
    children.push(backend);
    await waitFor(async () => (await fetch(`http://127.0.0.1:${backendPort}/health`)).status === 200, 'backend');
    await seed(dbUrl.toString());
    const cli = spawnSync(process.execPath, [tsx, 'apps/backend/src/operators/create-cli.ts', 'bench@ops.test', 'viewer'], {
      cwd: root,
      env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: dbUrl.toString(), OPERATOR_PASSWORD: PASSWORD },
      encoding: 'utf8',
    });
    if (cli.status !== 0) throw new Error(`operator:create failed: ${cli.stderr}`);
    const gateway = startBundle('gateway', {
      ...gatewayEnv(`http://127.0.0.1:${backendPort}`, { http: httpPort, botlink: botlinkPort, internal: internalPort }, certs),
      GATEWAY_CONSOLE_EXPORT_CAP: String(EXPORT_CAP),
    });
    children.push(gateway);
    const base = `http://127.0.0.1:${httpPort}`;
    await waitFor(async () => (await fetch(`${base}/health`)).status === 200, 'gateway');

    const form = await fetch(`${base}/_gm/login`);
    const loginCookie =
      form.headers
        .getSetCookie()
        .find((c) => c.startsWith('gm_login='))
        ?.split(';')[0] ?? '';
    const nonce = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
    const signed = await fetch(`${base}/_gm/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: loginCookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: nonce, login: 'bench@ops.test', password: PASSWORD }).toString(),
    });
    const cookie =
      signed.headers
        .getSetCookie()
        .find((c) => c.startsWith('gm_session='))
        ?.split(';')[0] ?? '';
    if (!cookie) throw new Error('sign-in failed');

    const today = new Date().toISOString().slice(0, 10);
    const yearAgo = new Date(Date.now() - 364 * 86_400_000).toISOString().slice(0, 10);
    const monthAgo = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    const filters: Array<[string, string]> = [
      ['default: last 30 days, all wallets', `from=${monthAgo}&to=${today}`],
      ['30 days, wallet=vk, kind=purchase', `from=${monthAgo}&to=${today}&wallet=vk&kind=purchase`],
      ['30 days, rail=yookassa', `from=${monthAgo}&to=${today}&rail=yookassa`],
      ['365 days, account=42', `from=${yearAgo}&to=${today}&account=42`],
      ['365 days, wallet=telegram, rail=telegram_stars', `from=${yearAgo}&to=${today}&wallet=telegram&rail=telegram_stars`],
    ];
    const figures: Figure[] = [];
    process.stdout.write(
      `\nfiltered first page with totals (HTML page through gateway -> backend -> PostgreSQL), ${SAMPLES} samples each [${loadLine()}]:\n`,
    );
    for (const [label, q] of filters) {
      const times: number[] = [];
      let first = 0;
      let matched = '';
      for (let i = 0; i < SAMPLES + 5; i += 1) {
        const t0 = performance.now();
        const res = await fetch(`${base}/_gm/ledger?${q}`, { headers: { cookie }, redirect: 'manual' });
        const text = await res.text();
        if (res.status !== 200) throw new Error(`${label}: HTTP ${res.status}`);
        if (i === 0) first = performance.now() - t0;
        if (i >= 5) times.push(performance.now() - t0);
        matched = /data-matched="(\d+)"/.exec(text)?.[1] ?? '?';
      }
      times.sort((a, b) => a - b);
      figures.push({
        name: `ledger page p95: ${label}`,
        value: percentile(times, 95) ?? Number.NaN,
        unit: 'ms',
        target: { on: 'value', op: '<=', limit: P95_TARGET_MS },
      });
      process.stdout.write(
        `  ${label.padEnd(48)} matched ${matched.padStart(7)}  p50 ${percentile(times, 50)?.toFixed(1)} ms  p95 ${percentile(times, 95)?.toFixed(1)} ms  first ${first.toFixed(0)} ms  [${loadLine()}]\n`,
      );
    }

    process.stdout.write(`\nCSV export (cap ${EXPORT_CAP} rows), RSS growth over the idle baseline, sampled every 10 ms:\n`);
    for (const [label, q, judged] of [
      ['~10,000 rows (4 days)', `from=${new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10)}&to=${today}`, false],
      [`${EXPORT_CAP} rows (capped; 365 days)`, `from=${yearAgo}&to=${today}`, true],
    ] as const) {
      const baseGw = rssKiB(gateway.pid ?? 0);
      const baseBe = rssKiB(backend.pid ?? 0);
      let peakGw = baseGw;
      let peakBe = baseBe;
      const sampler = setInterval(() => {
        peakGw = Math.max(peakGw, rssKiB(gateway.pid ?? 0));
        peakBe = Math.max(peakBe, rssKiB(backend.pid ?? 0));
      }, 10);
      const t0 = performance.now();
      const res = await fetch(`${base}/_gm/ledger/export.csv?${q}`, { headers: { cookie } });
      let bytes = 0;
      let lines = 0;
      const reader = res.body?.getReader();
      for (;;) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) break;
        const data: Uint8Array = chunk.value as Uint8Array;
        bytes += data.length;
        for (const b of data) if (b === 10) lines += 1;
      }
      clearInterval(sampler);
      process.stdout.write(
        `  ${label.padEnd(34)} ${String(lines - 1).padStart(7)} rows  ${(bytes / 1_048_576).toFixed(1)} MiB in ${((performance.now() - t0) / 1000).toFixed(2)} s  ` +
          `gateway +${((peakGw - baseGw) / 1024).toFixed(1)} MiB (peak ${(peakGw / 1024).toFixed(0)} MiB)  backend +${((peakBe - baseBe) / 1024).toFixed(1)} MiB (peak ${(peakBe / 1024).toFixed(0)} MiB)\n`,
      );
      if (judged) {
        for (const [service, peak, baseline] of [
          ['gateway', peakGw, baseGw],
          ['backend', peakBe, baseBe],
        ] as const) {
          figures.push({
            name: `${service} peak RSS, ${EXPORT_CAP}-row CSV export`,
            value: peak / 1024,
            unit: 'MiB',
            target: { on: 'ratio', op: '<=', limit: EXPORT_RSS_RATIO },
            peer: { name: 'idle baseline', value: baseline / 1024 },
          });
        }
      }
    }
    printResult({ bench: 'console', figures, context: `${ROWS} ledger rows, ${SAMPLES} samples per filter; ${loadLine()}` });
  } finally {
    await stopAll(children);
    if (process.env['BENCH_KEEP_DB'] === '1') process.stdout.write(`kept database ${dbUrl.toString()}\n`);
    else await query(serverUrl, `drop database if exists ${name} with (force)`);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`console bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
