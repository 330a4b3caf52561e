import type { BenchResult, Figure, Target } from './result.js';

/**
 * The report's one table: a row per figure with its value, its target, whether the target is met,
 * its peer measured in the same run and the ratio to it ("no peer" where the bench has none). A
 * bench that did not produce a result gets one row saying why.
 */

/** A bench that ran and reported, or one that failed to. */
export type BenchOutcome = { bench: string; result: BenchResult } | { bench: string; error: string };

/** The ratio of a figure to its peer: the bench's own when given, else value / peer; undefined without a peer. */
export function ratioOf(figure: Figure): number | undefined {
  if (figure.ratio !== undefined) return figure.ratio;
  return figure.peer ? figure.value / figure.peer.value : undefined;
}

/** Whether the target holds: undefined without a target; a missing or non-finite operand never meets it. */
export function targetMet(figure: Figure): boolean | undefined {
  const target = figure.target;
  if (!target) return undefined;
  const x = target.on === 'ratio' ? ratioOf(figure) : figure.value;
  if (x === undefined || !Number.isFinite(x)) return false;
  return target.op === '>=' ? x >= target.limit : x <= target.limit;
}

/** A number for people: grouped integers from 100 up, else up to three significant digits. */
export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return 'n/a';
  if (Math.abs(x) >= 100) return Math.round(x).toLocaleString('en-US');
  if (x === 0) return '0';
  return Number(x.toPrecision(3)).toString();
}

function describeTarget(target: Target | undefined, unit: string): string {
  if (!target) return '-';
  return target.on === 'ratio' ? `ratio ${target.op} ${formatNumber(target.limit)}` : `${target.op} ${formatNumber(target.limit)} ${unit}`;
}

const HEADER = ['bench', 'figure', 'value', 'target', 'verdict', 'peer (same run)', 'ratio'] as const;

/** The table's cells, header first. */
export function tableRows(outcomes: readonly BenchOutcome[]): string[][] {
  const rows: string[][] = [[...HEADER]];
  for (const outcome of outcomes) {
    if ('error' in outcome) {
      rows.push([outcome.bench, `FAILED: ${outcome.error}`, '', '', '', '', '']);
      continue;
    }
    for (const f of outcome.result.figures) {
      const met = targetMet(f);
      const ratio = ratioOf(f);
      rows.push([
        outcome.bench,
        f.name,
        `${formatNumber(f.value)} ${f.unit}`,
        describeTarget(f.target, f.unit),
        met === undefined ? '-' : met ? 'PASS' : 'FAIL',
        f.peer ? `${f.peer.name} ${formatNumber(f.peer.value)} ${f.unit}` : 'no peer',
        ratio === undefined ? '-' : `${formatNumber(ratio)}x`,
      ]);
    }
  }
  return rows;
}

/** The table as aligned text, with a summary line: how many targets were met and which benches failed. */
export function renderTable(outcomes: readonly BenchOutcome[]): string {
  const rows = tableRows(outcomes);
  const widths = HEADER.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const figures = outcomes.flatMap((o) => ('result' in o ? o.result.figures : []));
  const judged = figures.map(targetMet).filter((m) => m !== undefined);
  const failed = outcomes.filter((o) => 'error' in o).map((o) => o.bench);
  const summary = `targets met: ${judged.filter(Boolean).length} of ${judged.length}${failed.length > 0 ? `; benches failed: ${failed.join(', ')}` : ''}`;
  const contexts = outcomes.flatMap((o) => ('result' in o && o.result.context ? [`${o.bench}: ${o.result.context}`] : []));
  return [line(rows[0] ?? []), rule, ...rows.slice(1).map(line), '', summary, ...contexts, ''].join('\n');
}
