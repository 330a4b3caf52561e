import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('npm run operator:create -w apps/backend', () => {
  const name = `.data/operator-cli-test-${process.pid}`;
  afterAll(() => {
    rmSync(join(ROOT, name), { recursive: true, force: true });
    rmSync(join(ROOT, 'apps/backend', name), { recursive: true, force: true });
  });

  const create = (cwd: string, args: string[], login: string) =>
    spawnSync('npm', ['run', '--silent', 'operator:create', ...args, '--', login, 'viewer'], {
      cwd,
      // DEV_STACK_DIR empty: this store, never a dev stack the developer may be running in .data.
      env: { ...process.env, PGLITE_DIR: name, DATABASE_URL: '', DEV_STACK_DIR: '', OPERATOR_PASSWORD: 'cli test password' },
      encoding: 'utf8',
      timeout: 120_000,
    });

  it.each([
    ['the repository root, with -w apps/backend', '', ['-w', 'apps/backend'], 'cli-root'],
    ['a folder inside apps/backend', 'apps/backend/src', [], 'cli-inside'],
  ])(
    'writes to the PGlite store named relative to the repository root when run from %s',
    (_where, folder, args, login) => {
      const run = create(join(ROOT, folder), args, login);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}')).toMatchObject({ login, roles: ['viewer'] });
      // The stack's store (npm start: <root>/.data/pglite) is where the operator lands, not apps/backend/.data.
      expect(existsSync(join(ROOT, name))).toBe(true);
      expect(existsSync(join(ROOT, 'apps/backend', name))).toBe(false);
    },
    150_000,
  );
});
