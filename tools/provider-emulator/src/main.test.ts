import { spawn } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../../..');
const tsx = join(root, 'node_modules/tsx/dist/cli.mjs');
const main = join(import.meta.dirname, 'main.ts');

/** Runs main.ts with `env`; resolves with its output when it exits. */
function run(env: Record<string, string>, onLine?: (line: string, kill: () => void) => void) {
  const child = spawn(process.execPath, [tsx, main], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const line of chunk.split('\n').filter(Boolean)) onLine?.(line, () => child.kill('SIGTERM'));
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout, stderr })),
  );
}

describe('main', () => {
  it('exits 1 naming a bad variable', async () => {
    const result = await run({ PROVIDER_EMULATOR_PORT: 'abc' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PROVIDER_EMULATOR_PORT');
  });

  it('logs one JSON line with its URL, serves, and stops on SIGTERM', async () => {
    let apiStatus: number | null = null;
    const result = await run({ PROVIDER_EMULATOR_PORT: '0', LOG_LEVEL: 'info' }, (line, kill) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg !== 'provider emulator listening' || !entry.url) return;
      void fetch(`${entry.url}/v3/payments/x`)
        .then((response) => (apiStatus = response.status))
        .finally(kill);
    });
    expect(result.code).toBe(0);
    const lines = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const listening = lines.filter((l) => l.msg === 'provider emulator listening');
    expect(listening).toHaveLength(1);
    expect(listening[0]).toMatchObject({
      service: 'provider-emulator',
      apiUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/v3$/) as unknown,
    });
    expect(apiStatus).toBe(401);
    expect(result.stdout).not.toContain('dev-secret');
  });
});
