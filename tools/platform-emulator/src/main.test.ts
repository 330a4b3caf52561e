import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { readConfig } from './config.js';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

function run(env: Record<string, string>) {
  return spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('config', () => {
  it('has the documented defaults', () => {
    expect(readConfig({})).toEqual({
      PLATFORM_EMULATOR_PORT: 8081,
      PLATFORM_EMULATOR_HOST: '127.0.0.1',
      PLATFORM_BOT_TOKEN: 'dev-bot-token',
      PLATFORM_PRECHECKOUT_TIMEOUT_MS: 10_000,
      PLATFORM_STAR_TRANSACTIONS_ORDER: 'oldest_first',
      LOG_LEVEL: 'info',
    });
    expect(readConfig({ PLATFORM_STAR_TRANSACTIONS_ORDER: 'newest_first' }).PLATFORM_STAR_TRANSACTIONS_ORDER).toBe('newest_first');
    expect(() => readConfig({ PLATFORM_STAR_TRANSACTIONS_ORDER: 'newest' })).toThrow(/PLATFORM_STAR_TRANSACTIONS_ORDER/);
  });
});

describe('main', () => {
  it('exits 1 naming a bad variable', async () => {
    const child = run({ PLATFORM_EMULATOR_PORT: 'abc' });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(stderr).toContain('PLATFORM_EMULATOR_PORT');
  });

  it('logs its URL as one JSON line, serves the token and stops on SIGTERM', async () => {
    const child = run({
      PLATFORM_EMULATOR_PORT: '0',
      PLATFORM_BOT_TOKEN: 'cli-token',
      LOG_LEVEL: 'info',
      PLATFORM_STAR_TRANSACTIONS_ORDER: 'newest_first',
    });
    const exited = once(child, 'exit');
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const nl = out.indexOf('\n');
        if (nl >= 0) resolve(out.slice(0, nl));
      });
      child.once('exit', () => reject(new Error(`exited before logging: ${out}`)));
    });
    const log = JSON.parse(line) as { url: string; service: string; msg: string };
    expect(log).toMatchObject({ service: 'platform-emulator', msg: 'platform emulator listening' });
    const me = (await (await fetch(`${log.url}/botcli-token/getMe`)).json()) as { ok: boolean };
    expect(me.ok).toBe(true);
    const order: unknown = await (await fetch(`${log.url}/_control/star-transactions/order`)).json();
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
    expect(order).toEqual({ order: 'newest_first' });
  });
});
