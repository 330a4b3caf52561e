import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@wordgame/logging';
import { ensureDevCerts } from '@wordgame/testkit';
import { runEcho } from './echo.js';
import { runHub } from './hub.js';
import { printResult } from './report/result.js';
import { median, summarize, type RunSummary } from './stats.js';

/**
 * Bot-link benchmark: command-to-Ack round trips through the gateway's hub and Link over mTLS on
 * loopback, next to a bare connect-node bidi stream on the same listener measured the same way,
 * in one process (the bot on a worker thread). Rounds alternate echo and hub so load changes on
 * the machine hit both; the medians over rounds are compared.
 * BENCH_COMMANDS per run (default 60000), BENCH_WINDOW in flight (default 256), BENCH_ROUNDS
 * (default 5), BENCH_MAX_SECONDS per run (default 30). Ends with a BENCH_RESULT line.
 */
const total = Number(process.env.BENCH_COMMANDS ?? 60_000);
const window = Number(process.env.BENCH_WINDOW ?? 256);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const maxSeconds = Number(process.env.BENCH_MAX_SECONDS ?? 30);
const warmup = Math.min(20_000, Math.ceil(total / 3));

const out = (line: string) => process.stdout.write(`${line}\n`);
const row = (name: string, s: RunSummary) =>
  `${name.padEnd(24)} ${String(s.count).padStart(8)} ${s.seconds.toFixed(2).padStart(8)} ${Math.round(s.perSecond).toString().padStart(10)} ${s.p50Ms.toFixed(3).padStart(9)} ${s.p99Ms.toFixed(3).padStart(9)}`;

const dir = mkdtempSync(join(tmpdir(), 'bench-botlink-'));
const logger = createLogger('bench', 'warn');
try {
  const certs = ensureDevCerts(dir);
  out(
    `bot-link bench: one HTTP/2 mTLS stream on loopback, ${window} in flight, ${total} commands x ${rounds} rounds, node ${process.version}`,
  );
  out(
    `${'run'.padEnd(24)} ${'count'.padStart(8)} ${'seconds'.padStart(8)} ${'cmds/s'.padStart(10)} ${'p50 ms'.padStart(9)} ${'p99 ms'.padStart(9)}`,
  );
  await runEcho(certs, logger, warmup, window, maxSeconds);
  await runHub(certs, logger, warmup, window, maxSeconds);
  const echo: RunSummary[] = [];
  const hub: RunSummary[] = [];
  for (let round = 1; round <= rounds; round++) {
    const e = await runEcho(certs, logger, total, window, maxSeconds);
    echo.push(summarize(e.latenciesMs, e.seconds));
    out(row(`bare echo #${round}`, echo.at(-1) as RunSummary));
    const h = await runHub(certs, logger, total, window, maxSeconds);
    hub.push(summarize(h.latenciesMs, h.seconds));
    out(row(`hub command->Ack #${round}`, hub.at(-1) as RunSummary));
  }
  const med = (runs: RunSummary[], pick: (s: RunSummary) => number) => median(runs.map(pick));
  const e = { perSecond: med(echo, (s) => s.perSecond), p50: med(echo, (s) => s.p50Ms), p99: med(echo, (s) => s.p99Ms) };
  const h = { perSecond: med(hub, (s) => s.perSecond), p50: med(hub, (s) => s.p50Ms), p99: med(hub, (s) => s.p99Ms) };
  out(`median bare echo:        ${Math.round(e.perSecond)} cmds/s, p50 ${e.p50.toFixed(3)} ms, p99 ${e.p99.toFixed(3)} ms`);
  out(`median hub command->Ack: ${Math.round(h.perSecond)} cmds/s, p50 ${h.p50.toFixed(3)} ms, p99 ${h.p99.toFixed(3)} ms`);
  out(
    `ratio hub/echo: p50 ${(h.p50 / e.p50).toFixed(2)}x, p99 ${(h.p99 / e.p99).toFixed(2)}x, throughput ${(h.perSecond / e.perSecond).toFixed(2)}x`,
  );
  out(
    `targets: p99 within 1.5x of echo: ${h.p99 <= 1.5 * e.p99 ? 'met' : 'NOT met'}; >= 20000 cmds/s: ${h.perSecond >= 20_000 ? 'met' : 'NOT met'}`,
  );
  printResult({
    bench: 'botlink',
    figures: [
      {
        name: 'hub command->Ack (median)',
        value: h.perSecond,
        unit: 'cmds/s',
        target: { on: 'value', op: '>=', limit: 20_000 },
        peer: { name: 'bare echo', value: e.perSecond },
      },
      {
        name: 'hub command->Ack p99',
        value: h.p99,
        unit: 'ms',
        target: { on: 'ratio', op: '<=', limit: 1.5 },
        peer: { name: 'bare echo', value: e.p99 },
      },
      { name: 'hub command->Ack p50', value: h.p50, unit: 'ms', peer: { name: 'bare echo', value: e.p50 } },
    ],
    context: `${window} in flight, ${total} commands x ${rounds} rounds, medians over rounds`,
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
