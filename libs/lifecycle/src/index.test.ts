import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const fixture = fileURLToPath(new URL('../test/fixture-service.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../../../node_modules/tsx/dist/cli.mjs', import.meta.url));

async function run(mode: string, signal: NodeJS.Signals | null): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [tsx, fixture, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  if (signal) {
    while (!out.includes('"started"')) await new Promise((r) => setTimeout(r, 20));
    child.kill(signal);
  }
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, out };
}

describe('runService', () => {
  it('stops gracefully on SIGTERM and exits 0', async () => {
    const { code, out } = await run('ok', 'SIGTERM');
    expect(code).toBe(0);
    expect(out).toContain('"stopped by service"');
    expect(out).toContain('"msg":"stopped"');
  });

  it('exits 1 when start fails', async () => {
    const { code, out } = await run('fail-start', null);
    expect(code).toBe(1);
    expect(out).toContain('start failed');
  });

  it('exits 1 when stop overruns its grace period', async () => {
    const { code, out } = await run('hang-stop', 'SIGINT');
    expect(code).toBe(1);
    expect(out).toContain('graceful stop overran');
  });
});
