import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { REQUIRED_TEST_ENV } from './support/gateway-config.js';

describe('gateway main', () => {
  it('exits non-zero naming a bad variable', () => {
    const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
    const tsx = fileURLToPath(new URL('../../../node_modules/tsx/dist/cli.mjs', import.meta.url));
    const run = spawnSync(process.execPath, [tsx, main], {
      env: { ...process.env, ...REQUIRED_TEST_ENV, BOTLINK_PORT: 'abc' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^gateway: invalid configuration:\n {2}BOTLINK_PORT: must be a port number 0-65535 \(got "abc"\)/);
  });
});
