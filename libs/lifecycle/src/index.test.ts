import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@wordgame/logging';
import { settledWithin, stopSteps } from './index.js';

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

  it('names the steps done and those still running when the stop overruns', async () => {
    const { code, out } = await run('hang-step', 'SIGTERM');
    expect(code).toBe(1);
    const overran = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['msg'] === 'graceful stop overran, exiting');
    expect(overran?.['pending']).toEqual(['listeners', 'stuck']);
    expect(Object.keys(overran?.['steps'] as object).sort()).toEqual(['fine', 'quick']);
  });
});

describe('stopSteps', () => {
  it('logs each step at debug and once at the end the total and every step, side-by-side steps included', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger('test', 'debug', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const { step, done } = stopSteps(logger);
    await step('first', () => new Promise((resolve) => setTimeout(resolve, 30)));
    await step('both', () => Promise.all([step('a', () => undefined), step('b', () => new Promise((resolve) => setTimeout(resolve, 10)))]));
    done('service stopped');
    expect(lines.filter((l) => l['msg'] === 'stop step done').map((l) => l['step'])).toEqual(['first', 'a', 'b', 'both']);
    const last = lines.at(-1)!;
    expect(last['msg']).toBe('service stopped');
    const steps = last['steps'] as Record<string, number>;
    expect(Object.keys(steps).sort()).toEqual(['a', 'b', 'both', 'first']);
    expect(steps['first']).toBeGreaterThanOrEqual(25);
    expect(last['ms']).toBeGreaterThanOrEqual(steps['first']! + steps['both']!);
  });
});

describe('settledWithin', () => {
  it('is true for work that settles in time, rejected work included, and false when the time runs out', async () => {
    expect(await settledWithin(new Promise((resolve) => setTimeout(resolve, 5)), 1_000)).toBe(true);
    expect(await settledWithin(Promise.reject(new Error('closed badly')), 1_000)).toBe(true);
    // Work that never settles: the answer comes from the bound (a missing bound would never answer).
    expect(await settledWithin(new Promise(() => undefined), 50)).toBe(false);
  });
});
