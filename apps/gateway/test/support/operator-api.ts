import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call } from './edge.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');

/** The password every test operator is created with. */
export const OPERATOR_PASSWORD = 'correct horse battery staple';

/** Creates (or resets) an operator through the backend's CLI, as a deploy would. */
export function createOperator(databaseUrl: string, login: string, roles: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [TSX, join(ROOT, 'apps/backend/src/operators/create-cli.ts'), login, roles], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: databaseUrl, OPERATOR_PASSWORD, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/**
 * Creates an operator with `roles` and signs it in through the operator API
 * (`POST /_gm/api/session`); answers its bearer token.
 */
export async function operatorApiToken(
  databaseUrl: string,
  httpUrl: string,
  login = 'api-operator',
  roles = 'refunder,catalog_editor',
): Promise<string> {
  const made = createOperator(databaseUrl, login, roles);
  if (made.status !== 0) throw new Error(`operator:create failed: ${made.output}`);
  const res = await call(`${httpUrl}/_gm/api/session`, { method: 'POST', json: { login, password: OPERATOR_PASSWORD } });
  if (res.status !== 200) throw new Error(`operator sign-in: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { token: string }).token;
}
