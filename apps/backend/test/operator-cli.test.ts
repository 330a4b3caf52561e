import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshDatabase, type FreshDatabase } from '@wordgame/testkit';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('npm run operator:create -w apps/backend', () => {
  let database: FreshDatabase;
  let noStack: string;
  beforeAll(async () => {
    database = await freshDatabase('opcli');
    noStack = mkdtempSync(join(tmpdir(), 'no-dev-stack-'));
  });
  afterAll(async () => {
    await database.drop();
    rmSync(noStack, { recursive: true, force: true });
  });

  const create = (cwd: string, args: string[], login: string, env: Record<string, string>) =>
    spawnSync('npm', ['run', '--silent', 'operator:create', ...args, '--', login, 'viewer'], {
      cwd,
      env: { ...process.env, OPERATOR_PASSWORD: 'cli test password', ...env },
      encoding: 'utf8',
      timeout: 120_000,
    });

  it.each([
    ['the repository root, with -w apps/backend', '', ['-w', 'apps/backend'], 'cli-root'],
    ['a folder inside apps/backend', 'apps/backend/src', [], 'cli-inside'],
  ])(
    'writes to the database DATABASE_URL names when run from %s',
    async (_where, folder, args, login) => {
      // DEV_STACK_DIR empty: this database, never a dev stack the developer may be running in .data.
      const run = create(join(ROOT, folder), args, login, { DATABASE_URL: database.url, DEV_STACK_DIR: '' });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}')).toMatchObject({ login, roles: ['viewer'] });
      const rows = await database.query<{ roles: string[] }>('select roles from operators where login = $1', [login]);
      expect(rows.rows).toEqual([{ roles: ['viewer'] }]);
    },
    150_000,
  );

  it('with no dev stack running and no DATABASE_URL, exits 1 saying to start the stack or set DATABASE_URL', () => {
    const run = create(ROOT, ['-w', 'apps/backend'], 'cli-nowhere', { DATABASE_URL: '', DEV_STACK_DIR: noStack });
    expect(run.stderr).toContain('no dev stack is running');
    expect(run.stderr).toContain('start it (npm start), or set DATABASE_URL');
    expect(run.stderr).toMatch(/DATABASE_URL/);
    expect(run.status).toBe(1);
  }, 150_000);
});
