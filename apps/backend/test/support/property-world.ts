import { TEST_RATE_LIMITS, TEST_SERVICE_TOKENS } from '@wordgame/testkit';
import { startProviderEmulator, type ProviderEmulator } from '@wordgame/provider-emulator';
import { upsertProduct } from '../../src/catalog/catalog.store.js';
import { loadBackendConfig, type BackendConfig } from '../../src/config/index.js';
import type { Database } from '../../src/db/database.js';
import { freshMigratedPostgres } from '../../src/testing/databases.js';
import { SHOPS, SHOPS_ENV } from '../payments-support.js';

/** What the payments property tests run against: a migrated database, the provider emulator, config and one pack. */
export interface PropertyWorld {
  pg: Database & { url: string };
  emulator: ProviderEmulator;
  config: BackendConfig;
  /** A pack of 100 chips, 2 hints and 3 no-ads days, sold for 5,000 RUB minor units or 50 XTR. */
  productId: bigint;
  stop(): Promise<void>;
}

/** Starts a PropertyWorld; `env` adds backend variables. */
export async function startPropertyWorld(title: string, env: Record<string, string> = {}): Promise<PropertyWorld> {
  const pg = await freshMigratedPostgres();
  const emulator = await startProviderEmulator({ shops: [SHOPS.direct, SHOPS.vk], autoNotify: false });
  const config = loadBackendConfig({
    ...TEST_SERVICE_TOKENS,
    ...TEST_RATE_LIMITS,
    DATABASE_URL: pg.url,
    BACKEND_YOOKASSA_API_URL: emulator.apiUrl,
    BACKEND_YOOKASSA_SHOPS: SHOPS_ENV,
    ...env,
  });
  const { id: productId } = await upsertProduct(
    pg.db,
    {
      id: 0n,
      title,
      active: true,
      atoms: [
        { kind: 'chips', quantity: 100n },
        { kind: 'hints', quantity: 2n },
        { kind: 'no_ads_days', quantity: 3n },
      ],
      prices: [
        { method: 'provider', amount: 5_000n, currency: 'RUB' },
        { method: 'xtr', amount: 50n, currency: 'XTR' },
      ],
    },
    new Date(),
  );
  return {
    pg,
    emulator,
    config,
    productId,
    stop: async () => {
      await emulator.stop();
      await pg.close();
    },
  };
}
