// `npm test`: every project's jest suite through Nx, against real PostgreSQL (DATABASE_URL, default
// the local trust-auth server), then one closing line "N passed, N failed" summed over all projects.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const reports = join(root, '.reports/jest');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

const env = {
  ...process.env,
  DATABASE_URL: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test',
  JEST_REPORT_DIR: reports,
};
const args = [
  'nx',
  'run-many',
  '-t',
  'test',
  `--parallel=${process.env.TEST_PARALLEL ?? 2}`,
  '--output-style=stream',
  ...process.argv.slice(2),
];
const run = spawnSync('npx', ['--no-install', ...args], { cwd: root, env, stdio: 'inherit' });

let passed = 0;
let failed = 0;
const projects = JSON.parse(
  spawnSync('npx', ['--no-install', 'nx', 'show', 'projects', '--with-target', 'test', '--json'], { cwd: root, encoding: 'utf8' }).stdout,
);
for (const project of projects) {
  const file = join(reports, `${project}.json`);
  if (!existsSync(file)) {
    console.error(`no test report from ${project}: counted as one failure`);
    failed += 1;
    continue;
  }
  const r = JSON.parse(readFileSync(file, 'utf8'));
  passed += r.numPassedTests;
  failed += r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0);
}
const extra = readdirSync(reports).length - projects.length;
if (extra > 0) console.error(`${extra} unexpected report file(s) in ${reports}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(run.status === 0 && failed === 0 ? 0 : 1);
