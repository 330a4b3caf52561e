import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** The dev stack's operator (every role); a dev-only password, like the stack's other secrets. */
export const DEV_OPERATOR = {
  login: 'dev-operator',
  password: 'dev-operator-password',
  roles: 'viewer,refunder,catalog_editor,moderator,granter',
} as const;

/**
 * Creates (or resets) the dev operator through the backend's operator:create CLI, connected to
 * the stack's database server (`databaseUrl`) as every other command is. Console and operator API
 * (`POST /_gm/api/session`) sign in with it.
 */
export function ensureDevOperator(root: string, databaseUrl: string): void {
  const run = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules/tsx/dist/cli.mjs'),
      join(root, 'apps/backend/src/operators/create-cli.ts'),
      DEV_OPERATOR.login,
      DEV_OPERATOR.roles,
    ],
    {
      cwd: root,
      env: {
        PATH: process.env['PATH'] ?? '',
        DATABASE_URL: databaseUrl,
        OPERATOR_PASSWORD: DEV_OPERATOR.password,
        LOG_LEVEL: 'silent',
      },
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  if (run.status !== 0) throw new Error(`creating the dev operator failed: ${run.stdout}${run.stderr}`);
}
