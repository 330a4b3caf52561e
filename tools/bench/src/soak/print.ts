import type { SoakResult } from './result.js';
import { SERVICES } from './stack.js';
import type { Count } from './tally.js';
import { MEMORY_SLACK_FRACTION, MEMORY_SLACK_MIB, RSS_JUDGED_THIRD_SECONDS } from './verdict.js';

/** The soak's text output: the RSS table over time and the closing summary. */

const mib = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');

/** The header of the table printed over time (RSS in MiB, operations finished in the interval). */
export function sampleHeader(): string {
  return `${'t (s)'.padStart(6)}  ${SERVICES.map((s) => s.padStart(9)).join(' ')}  ${'ops'.padStart(6)} ${'errors'.padStart(6)}   (RSS MiB)`;
}

/** One row: seconds since the load started, each service's RSS (MiB, in SERVICES order) and the interval's counts. */
export function sampleRow(t: number, rssMiB: readonly number[], count: Count): string {
  return `${String(t).padStart(6)}  ${rssMiB.map((x) => mib(x).padStart(9)).join(' ')}  ${String(count.requests).padStart(6)} ${String(count.errors).padStart(6)}`;
}

/** The closing summary: requests and errors per kind, RSS per service with its verdict, payments, audit, the verdict. */
export function summary(r: SoakResult): string[] {
  const lines = [
    '',
    `per kind over ${r.seconds.toFixed(0)} s:`,
    `  ${'kind'.padEnd(16)} ${'requests'.padStart(8)} ${'per s'.padStart(6)} ${'errors'.padStart(6)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}  first error`,
  ];
  for (const k of r.kinds) {
    lines.push(
      `  ${k.kind.padEnd(16)} ${String(k.requests).padStart(8)} ${(k.requests / r.seconds).toFixed(1).padStart(6)} ${String(k.errors).padStart(6)} ${k.p50Ms.toFixed(1).padStart(8)} ${k.p99Ms.toFixed(1).padStart(8)}  ${k.firstError ?? ''}`,
    );
  }
  lines.push(
    '',
    `memory after a full GC (heap used + external), MiB: at the end of warm-up (the first third) and at the end;`,
    `  flat = grown by at most max(${MEMORY_SLACK_FRACTION * 100} % of the first reading, ${MEMORY_SLACK_MIB} MiB):`,
    `  ${'service'.padEnd(9)} ${'warm'.padStart(7)} ${'end'.padStart(7)} ${'growth'.padStart(7)} ${'slack'.padStart(7)}  flat`,
  );
  for (const s of SERVICES) {
    const m = r.retained[s];
    const cells = [m.warmMiB, m.endMiB, m.growthMiB, m.allowedMiB];
    lines.push(`  ${s.padEnd(9)} ${cells.map((x) => mib(x).padStart(7)).join(' ')}  ${m.flat ? 'yes' : 'NO'}`);
  }
  lines.push(
    `RSS MiB per service; flat = the last third's median (M3) at most max(${MEMORY_SLACK_FRACTION * 100} % of M2, ${MEMORY_SLACK_MIB} MiB) above the`,
    `  second third's (M2), judged only when a third lasts ${RSS_JUDGED_THIRD_SECONDS} s or more (shorter ones sit inside V8's heap ramp):`,
    `  ${'service'.padEnd(9)} ${'first'.padStart(7)} ${'peak'.padStart(7)} ${'last'.padStart(7)} ${'M2'.padStart(7)} ${'M3'.padStart(7)} ${'M3-M2'.padStart(7)} ${'slack'.padStart(7)}  flat`,
  );
  for (const s of SERVICES) {
    const m = r.memory[s];
    const cells = [m.firstMiB, m.peakMiB, m.lastMiB, m.secondThirdMedianMiB, m.lastThirdMedianMiB, m.growthMiB, m.allowedMiB];
    lines.push(`  ${s.padEnd(9)} ${cells.map((x) => mib(x).padStart(7)).join(' ')}  ${m.judged ? (m.flat ? 'yes' : 'NO') : 'not judged'}`);
  }
  const p = r.payments;
  lines.push(
    '',
    `errors: ${r.errors.firstThird} in the first third, ${r.errors.lastThird} in the last third (${r.errors.noGrowth ? 'no growth' : 'GROWING'})`,
    `payments settled ${p.settled} (${p.paid} paid, ${p.failed} canceled): ${p.wrongCount} not as expected; double credits ${p.doubleCredits}; unmatched ${p.unmatchedPayments}`,
    ...p.wrong.map((w) => `  ${w}`),
    `ledger audit: ${r.audit.clean ? 'clean' : `PROBLEMS\n${r.audit.output}`}`,
    r.passed ? 'SOAK VERDICT: PASS' : `SOAK VERDICT: FAIL\n${r.reasons.map((x) => `  - ${x}`).join('\n')}`,
  );
  return lines;
}
