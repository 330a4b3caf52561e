import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './service.js';

/** What the backend's ledger audit said about a database. */
export interface AuditResult {
  clean: boolean;
  operations: string;
  output: string;
}

/**
 * Runs the backend's ledger audit (apps/backend/src/ledger/audit-cli.ts, as `npm run audit -w
 * apps/backend` does): every segment balance equals the sum of its ledger operations and the
 * benefits match their grants. Exit 0 = clean.
 */
export function runLedgerAudit(databaseUrl: string): AuditResult {
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'apps/backend/src/ledger/audit-cli.ts')],
    {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  const output = `${run.stdout}${run.stderr}`;
  let operations = '?';
  try {
    const reported = (JSON.parse(run.stdout) as { operations?: unknown }).operations;
    if (typeof reported === 'string' || typeof reported === 'number') operations = String(reported);
  } catch {
    // not the JSON report: the output says why
  }
  return { clean: run.status === 0, operations, output };
}
