// `npm test`: the set-up (tools, PostgreSQL: setup.ts) and its one line, then every project's jest
// suite through Nx with the set-up's variables, then one closing line "N passed, N failed" summed
// over all projects. Extra arguments go to `nx run-many` (`npm test -- -p testkit gateway`).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { prepareTestSetup } from './setup.js';

interface JestReport {
  numPassedTests: number;
  numFailedTests: number;
  numRuntimeErrorTestSuites?: number;
}

const root = resolve(import.meta.dirname, '../../..');
const reports = join(root, '.reports/jest');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

const setup = await prepareTestSetup();
console.log(setup.summary);
let stopping: Promise<void> | undefined;
const stop = () => (stopping ??= setup.stop());
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void stop().finally(() => process.exit(130));
  });
}

const env = { ...process.env, ...setup.env, JEST_REPORT_DIR: reports };
const args = [
  'nx',
  'run-many',
  '-t',
  'test',
  `--parallel=${process.env['TEST_PARALLEL'] ?? 2}`,
  '--output-style=stream',
  ...process.argv.slice(2),
];
const status = await new Promise<number | null>((done) => {
  const child = spawn('npx', ['--no-install', ...args], { cwd: root, env, stdio: 'inherit' });
  child.once('error', () => done(null));
  child.once('exit', (code) => done(code));
});
await stop();

let passed = 0;
let failed = 0;
const projects = JSON.parse(
  spawnSync('npx', ['--no-install', 'nx', 'show', 'projects', '--with-target', 'test', '--json', ...projectFilter(process.argv.slice(2))], {
    cwd: root,
    encoding: 'utf8',
  }).stdout,
) as string[];
for (const project of projects) {
  const file = join(reports, `${project}.json`);
  if (!existsSync(file)) {
    console.error(`no test report from ${project}: counted as one failure`);
    failed += 1;
    continue;
  }
  const r = JSON.parse(readFileSync(file, 'utf8')) as JestReport;
  passed += r.numPassedTests;
  failed += r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0);
}
const extra = readdirSync(reports).length - projects.length;
if (extra > 0) console.error(`${extra} unexpected report file(s) in ${reports}`);
if (status !== 0 && failed === 0) {
  // Nx failed although every report is green: a project exited non-zero after its tests (its exit guard, a crash).
  console.error(`the test run exited ${String(status)} with no failed test in the reports: see the log above; counted as one failure`);
  failed = 1;
}
if (setup.missing.length > 0) console.log(setup.summary);
console.log(`${passed} passed, ${failed} failed`);
process.exit(status === 0 && failed === 0 ? 0 : 1);

/** The `-p`/`--projects` selection of the nx arguments, so a narrowed run expects reports from those projects only. */
function projectFilter(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '-p' || arg === '--projects') {
      out.push('-p');
      while (i + 1 < argv.length && !(argv[i + 1] as string).startsWith('-')) out.push(argv[(i += 1)] as string);
    } else if (arg.startsWith('--projects=')) out.push(arg);
  }
  return out;
}
