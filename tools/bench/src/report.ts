/**
 * One report: runs the benches of tools/bench one after the other (botlink, wallet, payments, bot-ab,
 * console; REPORT_BENCHES=wallet,payments runs a subset, in the order given), each as its own
 * process with this environment (so knobs such as BENCH_ROUNDS pass through), echoes their output
 * on stderr prefixed with the bench's name, reads each one's BENCH_RESULT line, and prints one
 * table on stdout: each figure, its target, met or not, and its ratio to the peer measured in the
 * same run. Exits 1 when a bench failed to report, else 0 (a missed target is a figure, not a crash).
 * Run: `npm run report -w tools/bench`.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseResults } from './report/result.js';
import { renderTable, type BenchOutcome } from './report/table.js';
import { loadLine, root, tsx } from './services.js';

/** Every bench of tools/bench, in the order the report runs them. */
export const BENCHES = ['botlink', 'wallet', 'edge', 'overload', 'stars-pg', 'payments', 'bot-ab', 'console'] as const;

function chosen(): string[] {
  const list = process.env['REPORT_BENCHES']
    ?.split(',')
    .map((b) => b.trim())
    .filter(Boolean) ?? [...BENCHES];
  const unknown = list.filter((b) => !(BENCHES as readonly string[]).includes(b));
  if (unknown.length > 0) throw new Error(`REPORT_BENCHES: unknown bench ${unknown.join(', ')} (known: ${BENCHES.join(', ')})`);
  return list;
}

/** Runs one bench to its end; its stdout is kept for the result line and echoed with its stderr. */
function runBench(bench: string): Promise<BenchOutcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsx, path.join(root, 'tools/bench/src', `${bench}.ts`)], {
      cwd: root,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    const echo = (line: string) => process.stderr.write(`[${bench}] ${line}\n`);
    createInterface({ input: child.stdout }).on('line', (line) => {
      stdout += `${line}\n`;
      echo(line);
    });
    createInterface({ input: child.stderr }).on('line', echo);
    child.on('error', (err) => resolve({ bench, error: err.message }));
    child.on('close', (code, signal) => {
      try {
        const result = parseResults(stdout).at(-1);
        if (code !== 0 || !result) resolve({ bench, error: `exit ${code ?? signal ?? '?'}${result ? '' : ', no BENCH_RESULT line'}` });
        else resolve({ bench, result });
      } catch (err: unknown) {
        resolve({ bench, error: err instanceof Error ? err.message : String(err) });
      }
    });
  });
}

const started = Date.now();
const outcomes: BenchOutcome[] = [];
for (const bench of chosen()) {
  process.stderr.write(`\n=== ${bench} [${loadLine()}]\n`);
  outcomes.push(await runBench(bench));
}
process.stdout.write(
  `\nbench report (${((Date.now() - started) / 60_000).toFixed(1)} min, node ${process.version}, ${loadLine()})\n\n${renderTable(outcomes)}`,
);
process.exitCode = outcomes.some((o) => 'error' in o) ? 1 : 0;
