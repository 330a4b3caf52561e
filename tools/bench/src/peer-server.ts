/**
 * The one-process peer of the budgeted bench (issue #29): what a team would build instead of
 * gateway -> backend -> PostgreSQL, one Node process with `node:http` and `pg`, JSON in and out,
 * running the very statements wallet.get and wallet.buy run (READ_WALLET and BUY_STATEMENT, passed
 * in by the bench from the backend's source) as named prepared statements on a pool of the same
 * size as one backend's. A bearer token is resolved to its account once (sha256, `sessions`) and
 * cached, as the gateway caches a session. A `stale` buy (a concurrent writer to the account; none
 * with one connection per account) answers 409 rather than re-running under locks.
 *
 * Run by the bench as `node tools/bench/src/peer-server.ts` (Node strips the types); environment:
 * DATABASE_URL, PEER_PORT, PEER_POOL_MAX, PEER_READ_SQL, PEER_BUY_SQL. Prints `listening` when ready.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is required`);
  return value;
};

const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: Number(env('PEER_POOL_MAX')) });
const READ_SQL = env('PEER_READ_SQL');
const BUY_SQL = env('PEER_BUY_SQL');
const ORDER = ['direct', 'telegram', 'vk'];
const FLAGS = JSON.stringify({ spendOrder: ORDER, canSpend: true, frozen: false, trusted: true });
const accounts = new Map<string, string>();

async function accountOf(req: IncomingMessage): Promise<string | undefined> {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (token === undefined) return undefined;
  const cached = accounts.get(token);
  if (cached !== undefined) return cached;
  const hash = createHash('sha256').update(token).digest('hex');
  const { rows } = await pool.query<{ account_id: string }>({
    name: 'peer_session',
    text: 'SELECT account_id FROM sessions WHERE token_hash = $1 AND expires_at > now()',
    values: [hash],
  });
  const account = rows[0]?.account_id;
  if (account !== undefined) accounts.set(token, account);
  return account;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

interface WalletRow {
  part: string;
  origin: string;
  amount: string;
  no_ads_until: Date | null;
  no_ads_forever: boolean;
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.url !== '/api/v1/user/wallet') return send(res, 404, { error: 'not_found' });
  const account = await accountOf(req);
  if (account === undefined) return send(res, 401, { error: 'unauthenticated' });
  if (req.method === 'GET') {
    const { rows } = await pool.query<WalletRow>({ name: 'wallet_read', text: READ_SQL, values: [account] });
    const segments: Record<string, string> = {};
    const benefits: { origin: string; hints: string; no_ads_until: string | null; no_ads_forever: boolean }[] = [];
    for (const r of rows) {
      if (r.part === 'segment') segments[r.origin] = r.amount;
      else
        benefits.push({
          origin: r.origin,
          hints: r.amount,
          no_ads_until: r.no_ads_until?.toISOString() ?? null,
          no_ads_forever: r.no_ads_forever,
        });
    }
    return send(res, 200, { segments, benefits });
  }
  if (req.method === 'POST') {
    const body = JSON.parse(await readBody(req)) as { product_id?: unknown };
    const key = req.headers['idempotency-key'];
    const values = [account, String(body.product_id), typeof key === 'string' ? key : null, ORDER, ORDER, FLAGS, new Date()];
    const { rows } = await pool.query<{ status: string; result: unknown }>({ name: 'wallet_buy', text: BUY_SQL, values });
    const row = rows[0];
    if (row?.status === 'stale') return send(res, 409, { error: 'stale' });
    if (row?.status !== 'ok' && row?.status !== 'replay') return send(res, 422, { error: row?.status ?? 'no row' });
    return send(res, 200, row.result);
  }
  return send(res, 405, { error: 'method_not_allowed' });
}

const server = createServer((req, res) => {
  handle(req, res).catch((err: unknown) => send(res, 500, { error: String(err) }));
});
server.keepAliveTimeout = 60_000;
server.listen(Number(env('PEER_PORT')), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => {
  server.close();
  void pool.end();
  server.closeAllConnections();
});
