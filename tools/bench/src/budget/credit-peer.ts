/**
 * The payments peer of the budgeted bench: pgbench running the very statement ForwardPayment's
 * fast path credits a stars payment with (creditStatement of apps/backend, compiled by kysely as
 * the backend compiles it: the conditional UPDATE of the order and the CTEs that add the chips,
 * benefits, ledger row and payment event), prepared, at the bench's stars concurrency, on pending
 * stars orders made for it. Credited/s of ForwardPayment is printed as a ratio to this.
 */
/* eslint-disable @nx/enforce-module-boundaries -- the peer must run the backend's own statement, so it compiles it from the backend's source. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { creditStatement } from '../../../../apps/backend/src/payments/orders/credit.js';
import { percentile } from '../stats.js';
import { pgbenchLoad } from '../wallet-pgbench.js';

/** The stride of pgbench row numbers between clients (more than one client credits in a phase). */
const PER_CLIENT = 100_000;
/** Pending orders made per client per second of a run: above what one client credits (a spare is never credited). */
const ORDERS_PER_CLIENT_SECOND = 500;
const ORDER = '11111111-1111-4111-8111-111111111111';
const CHARGE = 'charge-placeholder';
const PAYER = 987_654_321n;

/** A prepared credit peer: its database and the pgbench script with its constant variables. */
export interface CreditPeer {
  url: string;
  script: string;
  constants: string[];
  productId: string;
  runs: number;
}

/** The order id of pgbench row number n (a uuid the SQL builds from n); the stars bench's peer uses it too. */
export const orderIdSql = (n: string): string => `('00000000-0000-4000-8000-' || lpad((${n})::text, 12, '0'))::uuid`;

/**
 * Builds the pgbench script from the backend's credit statement for a stars payment (every guard of
 * the fast path on): the order id and charge id from the client's row counter, the rest as constants.
 * `url` is a database with the backend's schema and at least one account and product.
 */
export async function prepareCreditPeer(url: string): Promise<CreditPeer> {
  const db = new Kysely<never>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
  const now = new Date();
  const st = creditStatement(db as never, ORDER, { platformChargeId: CHARGE, platformUserId: PAYER }, now, {
    rail: 'stars',
    amount: 5n,
    newPlatformChargeId: CHARGE,
  });
  const constants: string[] = [];
  let sqlText = st.sql;
  // Highest parameter first, so $1 does not match the start of $12.
  for (let k = st.parameters.length; k >= 1; k -= 1) {
    const v = st.parameters[k - 1];
    let replacement: string;
    if (v === ORDER) replacement = orderIdSql(':n');
    else if (v === CHARGE) replacement = `('pgb-' || :n)`;
    else if (v === null || v === undefined) replacement = 'NULL';
    else {
      const value =
        v instanceof Date
          ? v.toISOString()
          : typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint'
            ? String(v)
            : JSON.stringify(v);
      constants.push('-D', `c${k}=${value}`);
      replacement = `:c${k}`;
    }
    sqlText = sqlText.replaceAll(`$${k}`, replacement);
  }
  await db.destroy();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const productId = (await client.query<{ id: string }>('select id from catalog_products order by id limit 1')).rows[0]?.id;
  await client.end();
  if (productId === undefined) throw new Error('the credit peer needs a product in its database');
  return {
    url,
    // One line: pgbench reads a command until the semicolon at the end of a line.
    script: `\\set i :i + 1\n\\set n :base + :client_id * ${PER_CLIENT} + :i\n${sqlText.replace(/\s*\n\s*/g, ' ')};\n`,
    constants,
    productId,
    runs: 0,
  };
}

/** One pgbench run of the credit statement: credits per second actually made (orders turned paid), latency, failures. */
export async function creditPeer(
  peer: CreditPeer,
  clients: number,
  seconds: number,
  postgresCpu: () => number,
): Promise<{ perSecond: number; p50: number; p99: number; requests: number; uncredited: number; postgresMsPerCredit: number }> {
  const base = (peer.runs + 1) * clients * PER_CLIENT * 10;
  peer.runs += 1;
  const db = new pg.Client({ connectionString: peer.url });
  await db.connect();
  try {
    await db.query(
      `with a as (select id, row_number() over (order by id) - 1 as k, count(*) over () as total from accounts)
       insert into orders (id, account_id, product_id, title, rail, provider, segment, amount, currency, chips, state, created_at, expires_at)
       select ${orderIdSql('g')}, a.id, $1, 'Chips 10', 'stars', 'telegram_stars', 'telegram', 5, 'XTR', 10, 'pending', now(), now() + interval '1 day'
       from generate_series(0, $2::int - 1) c cross join generate_series(1, $3::int) i
       cross join lateral (select $4::bigint + c * ${PER_CLIENT} + i as g) n
       join a on a.k = n.g % a.total`,
      [peer.productId, clients, Math.min(PER_CLIENT, ORDERS_PER_CLIENT_SECOND * seconds), base],
    );
    await db.query('vacuum analyze orders');
    const paid = async () =>
      Number(
        (await db.query<{ n: string }>(`select count(*) as n from orders where state = 'paid' and platform_charge_id like 'pgb-%'`)).rows[0]
          ?.n,
      );
    const before = await paid();
    const cpu0 = postgresCpu();
    const dir = mkdtempSync(path.join(tmpdir(), 'pgbench-credit-'));
    const script = path.join(dir, 'credit.sql');
    writeFileSync(script, peer.script);
    const run = spawnSync(
      'pgbench',
      [
        ...pgbenchLoad(clients, seconds),
        '-D',
        'i=0',
        '-D',
        `base=${base}`,
        ...peer.constants,
        '-f',
        script,
        '-l',
        `--log-prefix=${path.join(dir, 'log')}`,
        peer.url,
      ],
      { encoding: 'utf8' },
    );
    const cpu = postgresCpu() - cpu0;
    if (run.status !== 0) throw new Error(`pgbench (credit statement) failed: ${run.stderr}`);
    const latencies = readdirSync(dir)
      .filter((f) => f.startsWith('log'))
      .flatMap((f) => readFileSync(path.join(dir, f), 'utf8').trim().split('\n'))
      .map((line) => Number(line.split(' ')[2]) / 1000)
      .sort((a, b) => a - b);
    rmSync(dir, { recursive: true, force: true });
    const credited = (await paid()) - before;
    const elapsed = Number(/duration: (\d+) s/.exec(run.stdout)?.[1] ?? seconds);
    return {
      perSecond: credited / elapsed,
      p50: percentile(latencies, 50) ?? NaN,
      p99: percentile(latencies, 99) ?? NaN,
      requests: credited,
      // Transactions that credited nothing: a client ran past its pending orders (raise ORDERS_PER_CLIENT_SECOND).
      uncredited: latencies.length - credited,
      postgresMsPerCredit: (cpu * 1000) / Math.max(1, latencies.length),
    };
  } finally {
    await db.end();
  }
}
