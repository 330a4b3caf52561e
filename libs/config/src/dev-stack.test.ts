import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStackEnv, removeStackEnv, withDevStack, writeStackEnv } from './dev-stack.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dev-stack-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A pid that no process has: a child that already exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid ?? 0;
}

describe('stack.env', () => {
  it('is written with mode 0600 and removed by the stack that wrote it', () => {
    const file = writeStackEnv(
      dir,
      { DATABASE_URL: 'postgres://postgres@127.0.0.1:5433/postgres', BACKEND_SERVICE_TOKEN: 'x'.repeat(43) },
      'dev',
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readStackEnv(dir)).toMatchObject({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5433/postgres',
      DEV_STACK_PID: String(process.pid),
    });
    removeStackEnv(dir);
    expect(existsSync(file)).toBe(false);
  });

  it('refuses a value that would break the file', () => {
    expect(() => writeStackEnv(dir, { BAD: 'a\nB=c' }, 'dev')).toThrow(RangeError);
  });

  it('withDevStack: the running stack wins over the environment (and says so); without DEV_STACK_DIR nothing changes', () => {
    writeStackEnv(dir, { DATABASE_URL: 'postgres://postgres@127.0.0.1:5433/postgres', BACKEND_SERVICE_TOKEN: 'stack-token' }, 'dev');
    const notices: string[] = [];
    const env = withDevStack({ DEV_STACK_DIR: dir, DATABASE_URL: 'postgres://127.0.0.1:5432/test', LOG_LEVEL: 'warn' }, (l) =>
      notices.push(l),
    );
    expect(env).toMatchObject({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5433/postgres',
      BACKEND_SERVICE_TOKEN: 'stack-token',
      LOG_LEVEL: 'warn',
    });
    expect(notices).toEqual([expect.stringContaining('over DATABASE_URL from the environment') as unknown]);
    const production = { DATABASE_URL: 'postgres://db/prod' };
    expect(withDevStack(production, () => undefined)).toBe(production);
  });

  it('withDevStack ignores a file left by a stack that is gone', async () => {
    writeFileSync(join(dir, 'stack.env'), `DEV_STACK_PID=${await deadPid()}\nDATABASE_URL=postgres://postgres@127.0.0.1:5433/postgres\n`);
    const notices: string[] = [];
    expect(withDevStack({ DEV_STACK_DIR: dir }, (l) => notices.push(l))).toEqual({ DEV_STACK_DIR: dir });
    expect(notices).toEqual([expect.stringMatching(/no dev stack is running .*start it \(npm start\), or set DATABASE_URL/) as unknown]);
  });
});
