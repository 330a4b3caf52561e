import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { percentile } from './stats.js';

/**
 * The spend transaction `wallet.buy` issued before it became one statement (11 round trips):
 * printed for comparison only.
 */
export const PGBENCH_SPEND_CLASSIC = `
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
UPDATE buy_requests SET result = '{"bench": true}' WHERE account_id = :aid AND idempotency_key = 'pgb-' || :key;
END;
`;

/** pgbench's load options for every bench: prepared statements, `clients` clients on 2 threads for `seconds`, no vacuum. */
export function pgbenchLoad(clients: number, seconds: number): string[] {
  return ['-n', '-M', 'prepared', '-c', String(clients), '-j', '2', '-T', String(seconds)];
}

/** Where wallet.get's one statement (READ_WALLET) is defined in the backend. */
export const READ_WALLET_FILE = 'apps/backend/src/wallet/wallet.store.ts';
/** Where wallet.buy's one statement (BUY_STATEMENT) is defined in the backend. */
export const BUY_STATEMENT_FILE = 'apps/backend/src/ledger/postings/buy.ts';

/**
 * The text of the template-literal constant `constName` in the backend's `file` under `root`, trimmed,
 * so a bench runs the very statement the backend runs; throws when the constant is not there.
 */
export function backendStatement(root: string, file: string, constName: string): string {
  const source = readFileSync(path.join(root, file), 'utf8');
  const statement = new RegExp(`const ${constName} = \`([\\s\\S]*?)\`;`).exec(source)?.[1];
  if (!statement) throw new Error(`${constName} not found in ${file}`);
  return statement.trim();
}

/**
 * The spend `wallet.buy` issues now: BUY_STATEMENT read from the backend's source (so the two
 * cannot drift), with a direct;web context, one fresh Idempotency-Key per transaction and the
 * caller's account = pgbench client id + 1, run as a prepared statement like the backend does.
 */
export function pgbenchSpendStatement(root: string): string {
  const statement = backendStatement(root, BUY_STATEMENT_FILE, 'BUY_STATEMENT');
  const order = `ARRAY['direct','telegram','vk']`;
  // Built with functions: pgbench would take the colons of a JSON literal for its variables.
  const flags = `jsonb_build_object('spendOrder', jsonb_build_array('direct','telegram','vk'), 'canSpend', true, 'frozen', false, 'trusted', true)`;
  const sqlText = statement
    .replaceAll('$1::bigint', ':aid::bigint')
    .replaceAll('$2::bigint', ':pid::bigint')
    .replaceAll('$3::text', `('pgb-' || :key)::text`)
    .replaceAll('$4::text[]', `${order}::text[]`)
    .replaceAll('$5::text[]', `${order}::text[]`)
    .replaceAll('$6::jsonb', `${flags}::jsonb`)
    .replaceAll('$7::timestamptz', 'now()');
  if (/\$\d/.test(sqlText)) throw new Error('BUY_STATEMENT has a parameter the pgbench script does not bind');
  // pgbench reads one SQL command per line unless it ends with a semicolon.
  return `\\set aid :client_id + 1\n\\set key random(1, 1000000000000)\n${sqlText.trim()};\n`;
}

/**
 * wallet.get's own statement: READ_WALLET read from the backend's source (so the two cannot
 * drift), the caller's account = pgbench client id + 1, run prepared like the backend runs it.
 */
export function pgbenchReadStatement(root: string): string {
  const statement = backendStatement(root, READ_WALLET_FILE, 'READ_WALLET');
  const sqlText = statement.replaceAll('$1::bigint', ':aid::bigint');
  if (/\$\d/.test(sqlText)) throw new Error('READ_WALLET has a parameter the pgbench script does not bind');
  return `\\set aid :client_id + 1\n${sqlText.trim()};\n`;
}

/** pgbench's figures in the load generator's shape. */
export interface PgbenchFigures {
  requests: number;
  errors: number;
  perSecond: number;
  p50: number;
  p99: number;
}

/**
 * Runs `scriptText` with `clients` clients (2 threads) for `seconds` against `url` (`-M prepared`),
 * closed loop, or paced at `rate` transactions/s (`-R`): then each latency counts from the
 * transaction's scheduled start (pgbench's time plus its schedule lag), as the paced HTTP run
 * counts from each request's scheduled send time.
 */
export function pgbench(
  url: string,
  scriptText: string,
  productId: bigint,
  clients: number,
  seconds: number,
  rate?: number,
): PgbenchFigures {
  const dir = mkdtempSync(path.join(tmpdir(), 'pgbench-wallet-'));
  const script = path.join(dir, 'spend.sql');
  writeFileSync(script, scriptText);
  const run = spawnSync(
    'pgbench',
    [
      ...pgbenchLoad(clients, seconds),
      ...(rate === undefined ? [] : ['-R', String(rate)]),
      '-D',
      `pid=${productId}`,
      '-f',
      script,
      '-l',
      `--log-prefix=${path.join(dir, 'log')}`,
      url,
    ],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`pgbench failed: ${run.stderr}`);
  const latencies = readdirSync(dir)
    .filter((f) => f.startsWith('log'))
    .flatMap((f) => readFileSync(path.join(dir, f), 'utf8').trim().split('\n'))
    .map((line) => {
      const fields = line.split(' ');
      return (Number(fields[2]) + (rate === undefined ? 0 : Number(fields[6] ?? 0))) / 1000;
    })
    .sort((a, b) => a - b);
  const failed = /number of failed transactions: (\d+)/.exec(run.stdout)?.[1];
  const tps = Number(/tps = ([\d.]+)/.exec(run.stdout)?.[1] ?? NaN);
  return {
    requests: latencies.length,
    errors: Number(failed ?? 0),
    perSecond: tps,
    p50: percentile(latencies, 50) ?? NaN,
    p99: percentile(latencies, 99) ?? NaN,
  };
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc/<pid>/stat). */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  return ticks * 10;
}
