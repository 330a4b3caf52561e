import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@wordgame/logging';
import { ensureDevCerts } from '@wordgame/testkit';
import { buildGateway, type GatewayApp } from '../src/app.js';
import { freshDatabase, runLedgerAudit, startBackendProcess, type BackendProcess, type FreshDatabase } from './support/backend-process.js';
import { untrustedSession } from './support/chain.js';
import { call } from './support/edge.js';
import { testGatewayConfig } from './support/gateway-config.js';

const SECRET = 'promo-secret-for-the-api-codes-test-0123456789';
const LIMITS = { CODE_REDEEM_MAX: '6', CODE_REDEEM_ADDRESS_MAX: '10' };

/**
 * POST /api/v1/user/codes/redeem through the real gateway, backend process and PostgreSQL: what a
 * redemption answers and grants, the one answer for unknown and used-up codes, the player's own
 * repeat, the untrusted session, the history entry, and the per-account and per-address limits.
 */
describe('REST promo code redemption (gateway -> backend -> PostgreSQL)', () => {
  let dir: string;
  let db: FreshDatabase;
  let backend: BackendProcess;
  let gateway: GatewayApp;
  let base = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-codes-'));
    const certs = ensureDevCerts(dir);
    db = await freshDatabase();
    backend = await startBackendProcess(db.url, { ...LIMITS, PROMO_CODE_SECRET: SECRET, REAPER_INTERVAL_MS: '0' });
    gateway = buildGateway(
      testGatewayConfig(certs, { BACKEND_URL: backend.url, GATEWAY_TRUST_PROXY: 'loopback' }),
      createLogger('gateway-codes-test', 'silent'),
    );
    base = `${(await gateway.start()).httpUrl}/api/v1`;
  }, 120_000);
  afterAll(async () => {
    await gateway?.stop();
    await backend?.stop();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A code stored as the backend stores it: the keyed hash of the normalised code and its prefix. */
  const insertCode = async (code: string, max: number, chips = 25) => {
    const hash = createHmac('sha256', SECRET).update(code).digest();
    await db.query(
      `insert into promo_codes (code_hash, prefix, chips, max_redemptions, hosts, valid_from, valid_until, created_at)
       values ($1, $2, $3, $4, array['web'], now() - interval '1 hour', now() + interval '1 day', now())`,
      [hash, code.slice(0, 4), chips, max],
    );
  };
  let n = 0;
  const player = async (address: string) => {
    n += 1;
    const res = await call(`${base}/session/direct`, {
      method: 'POST',
      headers: { 'x-forwarded-for': address },
      json: { email: `codes${n}@example.test`, password: 'codes password 1', mode: 'signup', subtype: 'web' },
    });
    const body = res.body as { token: string; account_id: string };
    return { token: body.token, accountId: body.account_id };
  };
  const redeem = (token: string, code: unknown, address: string) =>
    call(`${base}/user/codes/redeem`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': address },
      json: { code },
    });

  it('grants once into the direct segment, answers the same for an unknown and a used-up code, and shows in the history', async () => {
    await insertCode('SUMMERTIMEGIFT01', 1);
    const first = await player('10.9.0.1');
    const res = await redeem(first.token, 'summer-time-gift-01', '10.9.0.1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ segment: 'direct', chips: '25', hints: '0', no_ads_days: '0', balance: '25' });
    const again = await redeem(first.token, 'SUMMERTIMEGIFT01', '10.9.0.1');
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'code_already_redeemed' } });

    const second = await player('10.9.0.2');
    const exhausted = await redeem(second.token, 'SUMMERTIMEGIFT01', '10.9.0.2');
    const unknown = await redeem(second.token, 'NO-SUCH-CODE-AT-ALL', '10.9.0.2');
    expect(exhausted.status).toBe(409);
    expect(unknown.status).toBe(409);
    expect(exhausted.body).toEqual(unknown.body);
    expect(unknown.body).toMatchObject({ error: { code: 'code_not_redeemable' } });

    const history = await call(`${base}/user/wallet/history`, { headers: { authorization: `Bearer ${first.token}` } });
    const entries = (history.body as { entries: Array<{ kind: string; chips: string; segment: string }> }).entries;
    expect(entries).toContainEqual(expect.objectContaining({ kind: 'code_grant', chips: '25', segment: 'direct' }));
    expect(runLedgerAudit(db.url).status).toBe(0);
  });

  it('refuses a malformed body and an untrusted session before the backend grants anything', async () => {
    const p = await player('10.9.1.1');
    const bad = await redeem(p.token, 12345, '10.9.1.1');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'invalid_request' } });
    await insertCode('UNTRUSTEDCODE001', 10);
    const untrusted = await untrustedSession(db, p.accountId);
    const res = await redeem(untrusted, 'UNTRUSTEDCODE001', '10.9.1.1');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { code: 'untrusted_session' } });
    const grants = await db.query(`select 1 from ledger_operations where kind = 'code_grant' and account_id = $1`, [p.accountId]);
    expect(grants.rowCount).toBe(0);
  });

  it('limits attempts per account, then per address across accounts, with Retry-After', async () => {
    await insertCode('LIMITEDCODE00001', 100);
    const guesser = await player('10.9.2.1');
    for (let i = 0; i < 6; i++) expect((await redeem(guesser.token, `GUESS${i}XXXXXXXX`, '10.9.2.1')).status).toBe(409);
    const limited = await redeem(guesser.token, 'LIMITEDCODE00001', '10.9.2.9');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body).toMatchObject({ error: { code: 'rate_limited' } });

    // The address 10.9.2.1 has 6 of its 10 attempts; other accounts from it use up the rest.
    const others = [await player('10.9.2.1'), await player('10.9.2.1'), await player('10.9.2.1')];
    for (const [i, o] of others.entries()) expect((await redeem(o.token, `OTHERGUESS${i}XXXX`, '10.9.2.1')).status).toBe(409);
    expect((await redeem(others[0]?.token ?? '', 'OTHERGUESS9XXXX', '10.9.2.1')).status).toBe(409);
    const byAddress = await redeem(others[1]?.token ?? '', 'LIMITEDCODE00001', '10.9.2.1');
    expect(byAddress.status).toBe(429);
    // Another address is not limited: the right code is granted.
    expect((await redeem(others[1]?.token ?? '', 'LIMITEDCODE00001', '10.9.2.2')).status).toBe(200);
  });
});
