import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@wordgame/logging';
import { startProviderEmulator, type ProviderEmulator } from '@wordgame/provider-emulator';
import { ensureDevCerts } from '@wordgame/testkit';
import { buildGateway, type GatewayApp, type GatewayUrls } from '../../src/app.js';
import { freshDatabase, startBackendProcess, type BackendProcess, type FreshDatabase } from './backend-process.js';
import { TELEGRAM_BOT_TOKEN, VK_APP_SECRET } from './chain.js';
import { operatorApiToken } from './operator-api.js';
import { freePort } from '@wordgame/testkit';
import { testGatewayConfig } from './gateway-config.js';

/** The card shop the hostile-input stack's backend is configured with. */
export const FUZZ_SHOP = { shopId: 'fuzz-shop', secretKey: 'fuzz-secret', test: true };

/**
 * Everything a hostile client can reach, fully configured (every sign-in platform, the card rail,
 * the operator token, the console), so a refusal is always the input's fault and never a
 * "not configured" 503: a fresh database, the provider emulator, the real backend process and the
 * whole gateway in-process.
 */
export interface FuzzStack {
  db: FreshDatabase;
  backend: BackendProcess;
  gateway: GatewayApp;
  urls: GatewayUrls;
  provider: ProviderEmulator;
  /** Bearer token of an operator (refunder, catalog_editor) signed in through the operator API. */
  operatorToken: string;
  stop(): Promise<void>;
}

export async function startFuzzStack(): Promise<FuzzStack> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-fuzz-'));
  const certs = ensureDevCerts(dir);
  const db = await freshDatabase();
  const provider = await startProviderEmulator({ shops: [FUZZ_SHOP], autoNotify: false });
  const internalPort = await freePort();
  const backend = await startBackendProcess(db.url, {
    BACKEND_TELEGRAM_BOT_TOKEN: TELEGRAM_BOT_TOKEN,
    BACKEND_VK_APP_SECRET: VK_APP_SECRET,
    PUBLIC_BASE_URL: 'http://gateway.test',
    GATEWAY_INTERNAL_URL: `http://127.0.0.1:${internalPort}`,
    BACKEND_YOOKASSA_API_URL: provider.apiUrl,
    BACKEND_YOOKASSA_SHOPS: `direct:${FUZZ_SHOP.shopId}:${FUZZ_SHOP.secretKey}:test`,
    REAPER_INTERVAL_MS: '0',
  });
  const gateway = buildGateway(
    testGatewayConfig(certs, {
      BACKEND_URL: backend.url,
      GATEWAY_INTERNAL_PORT: String(internalPort),
    }),
    createLogger('gateway-fuzz', 'silent'),
  );
  const urls = await gateway.start();
  const operatorToken = await operatorApiToken(db.url, urls.httpUrl);
  return {
    db,
    backend,
    gateway,
    urls,
    operatorToken,
    provider,
    stop: async () => {
      await gateway.stop();
      await backend.stop();
      await provider.stop();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A fingerprint of everything the database holds: per table of the public schema, its row count
 * and an md5 over its rows in a stable order. Equal fingerprints before and after mean nothing
 * was written. `ignore` names tables a refused request legitimately writes (the operator audit, the
 * rate-limit counters); none by default.
 */
export async function databaseFingerprint(db: FreshDatabase, ignore: readonly string[] = []): Promise<Record<string, string>> {
  const tables = await db.query<{ name: string }>(
    `select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
  );
  const out: Record<string, string> = {};
  for (const { name } of tables.rows) {
    if (ignore.includes(name)) continue;
    const row = await db.query<{ n: string; h: string | null }>(
      `select count(*)::text as n, md5(string_agg(t::text, '|' order by t::text)) as h from "${name.replace(/"/g, '""')}" t`,
    );
    out[name] = `${row.rows[0]?.n ?? '?'}:${row.rows[0]?.h ?? ''}`;
  }
  return out;
}
