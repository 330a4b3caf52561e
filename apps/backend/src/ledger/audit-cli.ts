import { ConfigError, withDevStack } from '@wordgame/config';
import { loadDatabaseConfig } from '../config/index.js';
import { openDatabase } from '../db/index.js';
import { auditLedger } from './audit.js';

/**
 * `npm run audit -w apps/backend` (or `npx tsx apps/backend/src/ledger/audit-cli.ts`): audits the
 * ledger of the database the backend's config names; prints a JSON report, exits 1 on any problem.
 */
async function main(): Promise<number> {
  const config = loadDatabaseConfig(withDevStack());
  const database = await openDatabase({ url: config.DATABASE_URL, poolMax: 2 });
  try {
    const report = await auditLedger(database.db);
    process.stdout.write(
      `${JSON.stringify({ ...report, operations: String(report.operations), clean: report.problems.length === 0 }, null, 2)}\n`,
    );
    return report.problems.length === 0 ? 0 : 1;
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `ledger audit: ${err instanceof ConfigError ? err.message : String(err instanceof Error ? (err.stack ?? err.message) : err)}\n`,
    );
    process.exit(2);
  },
);
