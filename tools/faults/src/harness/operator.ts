import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './service.js';
const PASSWORD = 'faults operator password';

/**
 * Creates an operator (refunder, catalog_editor) through the backend's CLI, as a deploy would,
 * and signs it in through the operator API; answers the bearer token of every /_gm/api call.
 */
export async function signInOperator(databaseUrl: string, gateway: string): Promise<string> {
  const login = 'faults-operator';
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'apps/backend/src/operators/create-cli.ts'), login, 'refunder,catalog_editor'],
    {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: databaseUrl, OPERATOR_PASSWORD: PASSWORD, LOG_LEVEL: 'silent' },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  if (run.status !== 0) throw new Error(`operator:create failed: ${run.stdout}${run.stderr}`);
  const res = await fetch(`${gateway}/_gm/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login, password: PASSWORD }),
  });
  const body = (await res.json()) as { token?: string };
  if (res.status !== 200 || body.token === undefined) throw new Error(`operator sign-in: ${res.status} ${JSON.stringify(body)}`);
  return body.token;
}
