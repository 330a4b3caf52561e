import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PINNED = readFileSync(join(ROOT, '.nvmrc'), 'utf8').trim();
/** The npm on PATH (its CLI script, run by whichever node a test chooses: npm checks engines against that node). */
const NPM_CLI = realpathSync(
  (process.env['PATH'] ?? '')
    .split(delimiter)
    .map((d) => join(d, 'npm'))
    .find((p) => existsSync(p)) ?? 'npm',
);

/**
 * What `npm ci` reads to decide about engines: the root manifest, the lockfile and every
 * workspace's manifest, copied to a scratch folder so a dry run touches nothing here.
 */
function installManifests(): string {
  const dir = mkdtempSync(join(tmpdir(), 'engines-'));
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(ROOT, file), join(dir, file));
  for (const group of ['apps', 'libs', 'tools']) {
    for (const name of readdirSync(join(ROOT, group))) {
      const manifest = join(ROOT, group, name, 'package.json');
      if (!existsSync(manifest)) continue;
      mkdirSync(join(dir, group, name), { recursive: true });
      cpSync(manifest, join(dir, group, name, 'package.json'));
    }
  }
  return dir;
}

function dryRunCi(node: string, dir: string): { status: number | null; output: string } {
  const res = spawnSync(node, [NPM_CLI, 'ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
    timeout: 120_000,
  });
  return { status: res.status, output: `${res.stdout}\n${res.stderr}` };
}

/**
 * `npm ci` on the machine's older node used to print about 30 lines of EBADENGINE warnings (the root
 * wants Node 24, five dependencies Node >= 22) and install anyway. Now the install runs under the
 * pinned Node (`npm run setup` fetches it like `npm start`) and finds every engine satisfied. A bare
 * `npm ci` under another node still installs (with those warnings), so habit never blocks a newcomer.
 */
describe('npm ci and engines', () => {
  let dir: string;
  beforeAll(() => {
    dir = installManifests();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs under the pinned node here, and every package in the lockfile accepts it: no engine warning', () => {
    expect(process.version).toBe(`v${PINNED}`);
    const { status, output } = dryRunCi(process.execPath, dir);
    expect(output).not.toContain('EBADENGINE');
    expect(status).toBe(0);
  });

  it('tells how to install on another node: `npm run setup` runs npm ci under the pinned node', () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['setup']).toBe('bash tools/node/with-node.sh npm ci --no-audit --no-fund');
  });
});
