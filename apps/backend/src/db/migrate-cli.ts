import { ConfigError, withDevStack } from '@wordgame/config';
import { loadBackendConfig } from '../config/index.js';
import { openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';

/**
 * `migrate` (a bundled command of the backend image; `npx tsx apps/backend/src/db/migrate-cli.ts`
 * from a checkout): applies every pending migration to the database the backend's config names and
 * prints what it applied. The backend also migrates at start; this runs them ahead of a rollout.
 */
async function main(): Promise<number> {
  const config = loadBackendConfig(withDevStack());
  const database = await openDatabase({ url: config.DATABASE_URL, poolMax: 2 });
  try {
    const applied = await migrateToLatest(database.db);
    process.stdout.write(`${JSON.stringify({ applied })}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `migrate: ${err instanceof ConfigError ? err.message : String(err instanceof Error ? (err.stack ?? err.message) : err)}\n`,
    );
    process.exit(1);
  },
);
