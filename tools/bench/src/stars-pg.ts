/**
 * Stars payment bench (issue 39, target 2): what one stars payment costs PostgreSQL. A gateway, a
 * backend and the updates-owner bot (the faults harness's cluster) against the platform emulator,
 * on a private PostgreSQL 15 with pg_stat_statements (top-level statements) and pg_walinspect
 * (commit records in the WAL = write transactions); payers pay a stars product end to end (order
 * with its invoice link, pre-checkout, successful_payment forwarded by the bot, credit) at
 * BENCH_STARS_CONCURRENCY (default 8) for BENCH_SECONDS (default 10), and the bench waits for every
 * approved payment to be credited. Per payment: top-level statements, write transactions and
 * transactions of any kind, and the CPU of every PostgreSQL process of the cluster.
 *
 * Peer, in the same run on the same cluster: pgbench running the spec's minimum for a payment as
 * three autocommit statements at the same concurrency: the order insert with its link, the
 * conditional hold, and the backend's own credit statement (budget/credit-peer.ts compiles it).
 * Targets: <= 6 statements and <= 3 write transactions per payment, PostgreSQL CPU <= 1.5x the peer's.
 *
 * Run: `npm run stars-pg -w tools/bench`. Needs Debian's PostgreSQL 15 server binaries and pgbench.
 */
/* eslint-disable @nx/enforce-module-boundaries -- the bench runs the faults harness's cluster and emulators, as the budgeted bench does. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startPlatformEmulator } from '@wordgame/platform-emulator';
import { startProviderEmulator } from '@wordgame/provider-emulator';
import { freshDatabase } from '@wordgame/testkit';
import { createOrder, createProduct, telegramCustomer, type Customer, type Order } from '../../faults/src/harness/api.js';
import { operatorToken, startCluster, type Cluster } from '../../faults/src/harness/cluster.js';
import { PrivateCluster } from '../../faults/src/harness/postgres.js';
import { CARD_SHOP, TELEGRAM_BOT_TOKEN } from '../../faults/src/harness/stack.js';
import { waitFor } from '../../faults/src/harness/wait.js';
import { orderIdSql, prepareCreditPeer } from './budget/credit-peer.js';
import { printResult } from './report/result.js';
import { pgbenchLoad } from './wallet-pgbench.js';
import { buildBundles, loadLine } from './services.js';
import { seedProduct, signUp } from './wallet-seed.js';

const concurrency = Number(process.env['BENCH_STARS_CONCURRENCY'] ?? 8);
const seconds = Number(process.env['BENCH_SECONDS'] ?? 10);
/** A marker in the bench's own statements on the measured database, so they are not counted. */
const MARK = '/* stars-pg-bench */';
const PER_CLIENT = 1_000_000;

interface Counters {
  statements: number;
  commits: number;
  transactions: number;
  cpuMs: number;
  lsn: string;
}

/** CPU (ms) of the postmaster and all its children, live and exited (backends, WAL writer, checkpointer...). */
function clusterCpuMs(postmaster: number): number {
  const cpu = (pid: number) => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * 10;
    } catch {
      return 0;
    }
  };
  // The postmaster's own CPU, that of its children it has reaped (backends of closed connections), and the live ones'.
  const fields = readFileSync(`/proc/${postmaster}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  let total = cpu(postmaster) + (Number(fields[13] ?? 0) + Number(fields[14] ?? 0)) * 10;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
      if (ppid === postmaster) total += cpu(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

async function counters(admin: pg.Client, postmaster: number): Promise<Counters> {
  const st = await admin.query<{ n: string }>(
    `select coalesce(sum(calls), 0) as n from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database()) and query not like '%stars-pg-bench%' ${MARK}`,
  );
  const db = await admin.query<{ n: string }>(`select xact_commit as n from pg_stat_database where datname = current_database() ${MARK}`);
  const lsn = await admin.query<{ lsn: string }>(`select pg_current_wal_lsn()::text as lsn ${MARK}`);
  return {
    statements: Number(st.rows[0]?.n ?? 0),
    transactions: Number(db.rows[0]?.n ?? 0),
    commits: 0,
    cpuMs: clusterCpuMs(postmaster),
    lsn: lsn.rows[0]?.lsn ?? '0/0',
  };
}

/** Write transactions between two WAL positions: COMMIT records (read-only transactions write none). */
async function commitsBetween(admin: pg.Client, from: string, to: string): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    `select coalesce(sum(count), 0) as n from pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, true) where "resource_manager/record_type" in ('Transaction/COMMIT', 'Transaction/COMMIT_PREPARED') ${MARK}`,
    [from, to],
  );
  return Number(rows[0]?.n ?? 0);
}

interface PerPayment {
  payments: number;
  statements: number;
  writeTransactions: number;
  transactions: number;
  cpuMs: number;
}

function per(a: Counters, b: Counters, commits: number, payments: number): PerPayment {
  const n = Math.max(1, payments);
  return {
    payments,
    statements: (b.statements - a.statements) / n,
    writeTransactions: commits / n,
    transactions: (b.transactions - a.transactions) / n,
    cpuMs: (b.cpuMs - a.cpuMs) / n,
  };
}

async function main(): Promise<void> {
  buildBundles(['backend', 'gateway', 'bot']);
  const server = await PrivateCluster.create({
    shared_preload_libraries: 'pg_stat_statements',
    'pg_stat_statements.track': 'top',
    'pg_stat_statements.track_planning': 'on',
    'pg_stat_statements.max': '10000',
  });
  const postmaster = Number(readFileSync(path.join(server.dir, 'data/postmaster.pid'), 'utf8').split('\n')[0]);
  const platform = await startPlatformEmulator({ tokens: [TELEGRAM_BOT_TOKEN] });
  const provider = await startProviderEmulator({ shops: [CARD_SHOP] });
  const db = await freshDatabase('stars_pg', server.url);
  const admin = new pg.Client({ connectionString: db.url });
  let cluster: Cluster | undefined;
  try {
    await admin.connect();
    await admin.query(`create extension pg_stat_statements ${MARK}`);
    await admin.query(`create extension pg_walinspect ${MARK}`);
    cluster = await startCluster({
      databaseUrl: db.url,
      platformApiRoot: platform.apiRoot,
      providerApiUrl: provider.apiUrl,
      gateways: 1,
      backends: 1,
      bots: 1,
      logLevel: 'warn',
      backendEnv: { DB_POOL_MAX: '8', REAPER_INTERVAL_MS: '0', MODERATION_LAPSE_INTERVAL_MS: '0' },
    });
    const g0 = cluster.gateways[0];
    if (!g0) throw new Error('no gateway');
    const op = await operatorToken(db.url, g0.http, 'catalog_editor');
    const stars = await createProduct(
      g0.http,
      { title: 'Chips 10', atoms: [{ kind: 'chips', quantity: 10n }], prices: [{ method: 'xtr', amount: 5n, currency: 'XTR' }] },
      op,
    );
    const payers: { userId: number; customer: Customer }[] = [];
    for (let i = 0; i < concurrency; i += 1) {
      const userId = 60_000 + i;
      platform.control.createUser({ id: userId, firstName: `Payer ${i}`, started: true });
      payers.push({ userId, customer: await telegramCustomer(g0.api, userId) });
    }
    const payOne = async (w: number): Promise<boolean> => {
      const p = payers[w] as (typeof payers)[number];
      const res = await createOrder(g0.api, p.customer, stars, 'stars');
      if (res.status !== 201) throw new Error(`create order ${res.status} ${JSON.stringify(res.body)}`);
      const { preCheckoutQueryId } = platform.control.pay({ link: (res.body as Order).invoice_link ?? '', userId: p.userId });
      await waitFor('pre-checkout', () => platform.control.preCheckout(preCheckoutQueryId)?.status !== 'pending', 20_000, 5);
      return platform.control.preCheckout(preCheckoutQueryId)?.status === 'approved';
    };
    const uncredited = async () =>
      Number(
        (
          await admin.query<{ n: string }>(
            `select count(*) as n from orders where rail = 'stars' and checkout_hold_until is not null and paid_at is null ${MARK}`,
          )
        ).rows[0]?.n ?? 0,
      );
    const payFor = async (secs: number): Promise<number> => {
      const end = performance.now() + secs * 1000;
      let approved = 0;
      await Promise.all(
        payers.map(async (_, w) => {
          while (performance.now() < end) if (await payOne(w)) approved += 1;
        }),
      );
      await waitFor('every approved payment credited', async () => (await uncredited()) === 0, 60_000, 20);
      return approved;
    };

    await payFor(3); // warm-up: prepared statements, caches, JIT
    await admin.query(`select pg_stat_statements_reset() ${MARK}`);
    const a = await counters(admin, postmaster);
    const payments = await payFor(seconds);
    const b = await counters(admin, postmaster);
    const ours = per(a, b, await commitsBetween(admin, a.lsn, b.lsn), payments);
    // Where the statements go: each statement's calls per payment (the list the next cut starts from).
    const top = await admin.query<{ calls: string; plan_ms: number; exec_ms: number; query: string }>(
      `select calls, total_plan_time as plan_ms, total_exec_time as exec_ms, regexp_replace(query, '\\s+', ' ', 'g') as query from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database()) and query not like '%stars-pg-bench%' order by calls desc limit 30 ${MARK}`,
    );
    process.stderr.write(`  calls, planning and execution ms per payment, statement:\n`);
    const perPayment = (v: number | string) => (Number(v) / Math.max(1, payments)).toFixed(3).padStart(7);
    for (const r of top.rows)
      process.stderr.write(
        `  ${(Number(r.calls) / Math.max(1, payments)).toFixed(2).padStart(6)} ${perPayment(r.plan_ms)} ${perPayment(r.exec_ms)}  ${r.query.slice(0, 140)}\n`,
      );

    // The peer: the spec's minimum as three autocommit statements, on accounts of this database.
    await signUp(g0.http, concurrency);
    await seedProduct(db.url);
    const credit = await prepareCreditPeer(db.url);
    const accounts = (await admin.query<{ lo: string; n: string }>(`select min(id) as lo, count(*) as n from accounts ${MARK}`)).rows[0];
    const [head, counter, creditSql] = credit.script.trim().split('\n');
    const order = orderIdSql(':n');
    const script = [
      head,
      counter,
      `\\set aid ${accounts?.lo ?? 1} + (:n % ${accounts?.n ?? 1})`,
      `INSERT INTO orders (id, account_id, product_id, title, rail, provider, segment, amount, currency, chips, state, created_at, expires_at, invoice_link) VALUES (${order}, :aid, ${credit.productId}, 'Chips 10', 'stars', 'telegram_stars', 'telegram', 5, 'XTR', 10, 'pending', now(), now() + interval '1 day', 'https://t.me/$pgb' || :n);`,
      `UPDATE orders SET checkout_hold_until = now() + interval '15 minutes' WHERE id = ${order} AND state = 'pending' AND (checkout_hold_until IS NULL OR checkout_hold_until < now());`,
      creditSql,
      '',
    ].join('\n');
    const dir = mkdtempSync(path.join(tmpdir(), 'pgbench-stars-'));
    writeFileSync(path.join(dir, 'stars.sql'), script);
    const paidByPeer = async () =>
      Number(
        (
          await admin.query<{ n: string }>(
            `select count(*) as n from orders where state = 'paid' and platform_charge_id like 'pgb-%' ${MARK}`,
          )
        ).rows[0]?.n ?? 0,
      );
    const before = await paidByPeer();
    const pa = await counters(admin, postmaster);
    const run = spawnSync(
      'pgbench',
      [
        ...pgbenchLoad(concurrency, seconds),
        '-D',
        'i=0',
        '-D',
        `base=${PER_CLIENT * concurrency}`,
        ...credit.constants,
        '-f',
        path.join(dir, 'stars.sql'),
        db.url,
      ],
      { encoding: 'utf8' },
    );
    rmSync(dir, { recursive: true, force: true });
    if (run.status !== 0) throw new Error(`pgbench failed: ${run.stderr}`);
    const pb = await counters(admin, postmaster);
    const peerPayments = (await paidByPeer()) - before;
    const transactions = Number(/number of transactions actually processed: (\d+)/.exec(run.stdout)?.[1] ?? 0);
    if (peerPayments !== transactions)
      throw new Error(`the peer credited ${peerPayments} of ${transactions} payments: its script no longer fits the schema`);
    const peer = per(pa, pb, await commitsBetween(admin, pa.lsn, pb.lsn), peerPayments);

    const fmt = (p: PerPayment) =>
      `${p.payments} payments: ${p.statements.toFixed(1)} statements, ${p.writeTransactions.toFixed(1)} write transactions, ${p.transactions.toFixed(1)} transactions, PostgreSQL CPU ${p.cpuMs.toFixed(2)} ms per payment`;
    process.stdout.write(
      `stars payments, ${concurrency} payers, ${seconds} s [${loadLine()}]\n  ours: ${fmt(ours)}\n  peer (pgbench, the spec's 3 statements): ${fmt(peer)}\n`,
    );
    printResult({
      bench: 'stars-pg',
      figures: [
        {
          name: 'stars payment: top-level SQL statements',
          value: ours.statements,
          unit: 'per payment',
          peer: { name: "the spec's minimum", value: peer.statements },
          target: { on: 'value', op: '<=', limit: 6 },
        },
        {
          name: 'stars payment: write transactions',
          value: ours.writeTransactions,
          unit: 'per payment',
          peer: { name: "the spec's minimum", value: peer.writeTransactions },
          target: { on: 'value', op: '<=', limit: 3 },
        },
        { name: 'stars payment: transactions of any kind', value: ours.transactions, unit: 'per payment' },
        {
          name: 'stars payment: PostgreSQL CPU',
          value: ours.cpuMs,
          unit: 'ms',
          peer: { name: "pgbench, the spec's 3 statements", value: peer.cpuMs },
          target: { on: 'ratio', op: '<=', limit: 1.5 },
        },
      ],
      context: `${concurrency} payers, ${seconds} s; ${loadLine()}`,
    });
  } finally {
    await admin.end().catch(() => undefined);
    await cluster?.stop();
    await provider.stop();
    await platform.stop();
    await db.drop().catch(() => undefined);
    server.destroy();
  }
}

await main();
