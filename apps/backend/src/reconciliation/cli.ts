import { systemClock } from '../support/index.js';
import { ConfigError, withDevStack } from '@wordgame/config';
import { createLogger } from '@wordgame/logging';
import { loadBackendConfig } from '../config/index.js';
import { openDatabase } from '../db/index.js';
import { paymentDeps } from '../payments/index.js';
import { reconcilerFor } from './module.js';
import { reportJson } from './report-json.js';
import { parseWindowArgs } from './window-args.js';

/**
 * `reconcile --from <ISO time> --to <ISO time>` (or `--hours N`: the last N hours): compares the
 * providers' books with the ledger of the database the backend's config names, stores the report
 * (the console and the metrics show it) and prints it as JSON. Exits 0 clean, 1 with mismatches,
 * 2 when the run failed or the arguments or configuration are bad, 3 when the run was incomplete (a
 * provider's list not read whole within its call bound: nothing is reported, neither way).
 */
async function main(): Promise<number> {
  const window = parseWindowArgs(process.argv.slice(2), systemClock());
  const config = loadBackendConfig(withDevStack());
  const logger = createLogger('reconcile', config.LOG_LEVEL, process.stderr);
  const database = await openDatabase({ url: config.DATABASE_URL, poolMax: 2 });
  try {
    const report = await reconcilerFor(config, paymentDeps(config, database.db, logger), null).run(window, 'cli');
    process.stdout.write(`${JSON.stringify(reportJson(report), null, 2)}\n`);
    const codes = { clean: 0, mismatches: 1, failed: 2, incomplete: 3 } as const;
    return codes[report.run.outcome];
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `reconcile: ${err instanceof ConfigError || err instanceof RangeError ? err.message : String(err instanceof Error ? (err.stack ?? err.message) : err)}\n`,
    );
    process.exit(2);
  },
);
