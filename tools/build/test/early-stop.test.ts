import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const preload = fileURLToPath(new URL('../early-stop.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'early-stop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A main.js still loading when the signal comes: a synchronous half second (parsing a big bundle),
 * then the asynchronous rest of its start, and only then does it own its signals as runService does.
 */
const main = join(dir, 'main.mjs');
writeFileSync(
  main,
  [
    "process.stdout.write('loading\\n');",
    'const until = Date.now() + 500;',
    'while (Date.now() < until) {}',
    'await new Promise((resolve) => setTimeout(resolve, 2000));',
    "globalThis[Symbol.for('wordgame.lifecycle.signals')] = true;",
    "process.on('SIGTERM', () => { process.stdout.write('service stopping\\n'); process.exit(3); });",
    "process.stdout.write('owned\\n');",
    'setInterval(() => {}, 1000);',
    '',
  ].join('\n'),
);

async function run(args: string[], signalAfter: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  const child = spawn(process.execPath, [...args, main], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const seen = new Promise<void>((resolve) => {
    const take = (d: Buffer) => {
      out += d.toString();
      if (out.includes(signalAfter)) resolve();
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
  });
  await seen;
  child.kill('SIGTERM');
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  return { code, signal, out };
}

describe("the images' early-stop preload", () => {
  it('exits 0 on a SIGTERM that comes before the service owns its signals (while main.js loads), and leaves later ones to the service', async () => {
    const loading = await run(['--import', preload], 'loading');
    expect(loading).toMatchObject({ code: 0, signal: null });
    expect(loading.out).toContain('stopped before the service started');
    expect(loading.out).not.toContain('service stopping');

    const started = await run(['--import', preload], 'owned');
    expect(started.out).toContain('service stopping');
    expect(started.code).toBe(3);
  }, 60_000);
});
