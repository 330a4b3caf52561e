/**
 * The one machine-readable line every bench prints last: `BENCH_RESULT {json}`, a BenchResult.
 * `report.ts` runs the benches and reads only this line, so a bench may change its human output
 * freely. A figure's target applies to its value or, with `on: 'ratio'`, to its ratio to the peer
 * measured in the same run (e.g. buy throughput >= 50 % of pgbench).
 */

/** The prefix of the result line. */
export const RESULT_PREFIX = 'BENCH_RESULT ';

/** A target: `value op limit` holds (or `ratio op limit` with `on: 'ratio'`). */
export interface Target {
  on: 'value' | 'ratio';
  op: '>=' | '<=';
  limit: number;
}

/** One figure of a bench. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  target?: Target;
  /** The peer measured in the same run; absent when the figure has none. */
  peer?: { name: string; value: number };
  /** The ratio when the bench computes it otherwise than value / peer (e.g. the median of per-round ratios). */
  ratio?: number;
}

/** What one bench reports. */
export interface BenchResult {
  bench: string;
  figures: Figure[];
  /** Free text printed under the table (machine load, settings). */
  context?: string;
}

/** The result line for `result` (JSON; NaN and infinities become null). */
export function resultLine(result: BenchResult): string {
  return `${RESULT_PREFIX}${JSON.stringify(result, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v))}`;
}

/** Prints the result line on stdout. */
export function printResult(result: BenchResult): void {
  process.stdout.write(`${resultLine(result)}\n`);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number';

function parseTarget(v: unknown): Target | undefined {
  if (v === undefined) return undefined;
  if (!isRecord(v) || (v['on'] !== 'value' && v['on'] !== 'ratio') || (v['op'] !== '>=' && v['op'] !== '<=') || !isNumber(v['limit'])) {
    throw new Error(`bad target ${JSON.stringify(v)}`);
  }
  return { on: v['on'], op: v['op'], limit: v['limit'] };
}

function parseFigure(v: unknown): Figure {
  if (!isRecord(v) || typeof v['name'] !== 'string' || typeof v['unit'] !== 'string') throw new Error(`bad figure ${JSON.stringify(v)}`);
  const value = v['value'] === null ? Number.NaN : v['value'];
  if (!isNumber(value)) throw new Error(`figure ${v['name']}: value is not a number`);
  const figure: Figure = { name: v['name'], value, unit: v['unit'] };
  const target = parseTarget(v['target']);
  if (target) figure.target = target;
  const peer = v['peer'];
  if (peer !== undefined) {
    if (!isRecord(peer) || typeof peer['name'] !== 'string' || !(isNumber(peer['value']) || peer['value'] === null))
      throw new Error(`figure ${v['name']}: bad peer`);
    figure.peer = { name: peer['name'], value: peer['value'] ?? Number.NaN };
  }
  if (v['ratio'] !== undefined) figure.ratio = isNumber(v['ratio']) ? v['ratio'] : Number.NaN;
  return figure;
}

/**
 * The BenchResult lines in a bench's output, in order (a line is a result line when it starts
 * with the prefix). Throws on a result line that does not parse: a bench that prints a broken
 * result is a bug to see, not a figure to skip.
 */
export function parseResults(output: string): BenchResult[] {
  const results: BenchResult[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith(RESULT_PREFIX)) continue;
    const json: unknown = JSON.parse(line.slice(RESULT_PREFIX.length));
    if (!isRecord(json) || typeof json['bench'] !== 'string' || !Array.isArray(json['figures']))
      throw new Error(`bad result line: ${line.slice(0, 200)}`);
    const result: BenchResult = { bench: json['bench'], figures: json['figures'].map(parseFigure) };
    if (typeof json['context'] === 'string') result.context = json['context'];
    results.push(result);
  }
  return results;
}
