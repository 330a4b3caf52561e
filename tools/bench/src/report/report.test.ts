import { parseResults, resultLine, type BenchResult } from './result.js';
import { formatNumber, ratioOf, renderTable, tableRows, targetMet } from './table.js';

const wallet: BenchResult = {
  bench: 'wallet',
  figures: [
    { name: 'wallet.get', value: 1327.4, unit: '/s', target: { on: 'value', op: '>=', limit: 4000 } },
    {
      name: 'wallet.buy',
      value: 637,
      unit: '/s',
      target: { on: 'ratio', op: '>=', limit: 0.5 },
      peer: { name: 'pgbench', value: 1721 },
      ratio: 0.371,
    },
    { name: 'wallet.buy p99', value: 12, unit: 'ms', target: { on: 'value', op: '<=', limit: 20 }, peer: { name: 'pgbench', value: 4 } },
  ],
  context: 'load 1.9',
};

describe('result lines', () => {
  it('round-trips a result through its line, among other output', () => {
    const output = `starting\n${resultLine(wallet)}\ndone\n`;
    expect(parseResults(output)).toEqual([wallet]);
  });

  it('writes NaN as null and reads it back as NaN', () => {
    const line = resultLine({
      bench: 'b',
      figures: [{ name: 'x', value: Number.NaN, unit: 'ms', peer: { name: 'p', value: Number.POSITIVE_INFINITY } }],
    });
    expect(line).toContain('"value":null');
    const [parsed] = parseResults(line);
    expect(parsed?.figures[0]?.value).toBeNaN();
    expect(parsed?.figures[0]?.peer?.value).toBeNaN();
  });

  it('ignores lines without the prefix and refuses a broken result line', () => {
    expect(parseResults('a BENCH_RESULT {} in the middle\n')).toEqual([]);
    expect(() => parseResults('BENCH_RESULT {"bench":"x"}')).toThrow(/bad result line/);
    expect(() => parseResults('BENCH_RESULT {"bench":"x","figures":[{"name":"y","unit":"ms","value":"fast"}]}')).toThrow(/not a number/);
    expect(() =>
      parseResults('BENCH_RESULT {"bench":"x","figures":[{"name":"y","unit":"ms","value":1,"target":{"on":"value","op":">","limit":1}}]}'),
    ).toThrow(/bad target/);
    expect(() => parseResults('BENCH_RESULT {not json')).toThrow(SyntaxError);
  });
});

describe('targets and ratios', () => {
  it('uses the bench ratio when given, else value / peer, and none without a peer', () => {
    expect(ratioOf(wallet.figures[1]!)).toBe(0.371);
    expect(ratioOf(wallet.figures[2]!)).toBe(3);
    expect(ratioOf(wallet.figures[0]!)).toBeUndefined();
  });

  it('judges value and ratio targets in both directions; NaN never meets one', () => {
    expect(targetMet(wallet.figures[0]!)).toBe(false);
    expect(targetMet({ ...wallet.figures[0]!, value: 4000 })).toBe(true);
    expect(targetMet(wallet.figures[1]!)).toBe(false);
    expect(targetMet({ ...wallet.figures[1]!, ratio: 0.5 })).toBe(true);
    expect(targetMet(wallet.figures[2]!)).toBe(true);
    expect(targetMet({ ...wallet.figures[2]!, value: 20.01 })).toBe(false);
    expect(targetMet({ ...wallet.figures[2]!, value: Number.NaN })).toBe(false);
    expect(targetMet({ name: 'p99', value: 3, unit: 'ms', target: { on: 'ratio', op: '<=', limit: 1.5 } })).toBe(false);
    expect(targetMet({ name: 'info', value: 3, unit: 'ms' })).toBeUndefined();
  });

  it('formats numbers for people', () => {
    expect(formatNumber(23360.4)).toBe('23,360');
    expect(formatNumber(39.71)).toBe('39.7');
    expect(formatNumber(1.1666)).toBe('1.17');
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(Number.NaN)).toBe('n/a');
  });
});

describe('the table', () => {
  it('has a row per figure with target, met, peer and ratio, and a row per failed bench', () => {
    const rows = tableRows([
      { bench: 'wallet', result: wallet },
      { bench: 'console', error: 'exit 1' },
    ]);
    expect(rows[0]).toEqual(['bench', 'figure', 'value', 'target', 'verdict', 'peer (same run)', 'ratio']);
    expect(rows[1]).toEqual(['wallet', 'wallet.get', '1,327 /s', '>= 4,000 /s', 'FAIL', 'no peer', '-']);
    expect(rows[2]).toEqual(['wallet', 'wallet.buy', '637 /s', 'ratio >= 0.5', 'FAIL', 'pgbench 1,721 /s', '0.371x']);
    expect(rows[3]).toEqual(['wallet', 'wallet.buy p99', '12 ms', '<= 20 ms', 'PASS', 'pgbench 4 ms', '3x']);
    expect(rows[4]).toEqual(['console', 'FAILED: exit 1', '', '', '', '', '']);
    expect(rows).toHaveLength(5);
  });

  it('renders aligned columns and a summary of targets met and benches failed', () => {
    const text = renderTable([
      { bench: 'wallet', result: wallet },
      { bench: 'console', error: 'exit 1' },
    ]);
    const lines = text.split('\n');
    const valueColumn = lines[0]?.indexOf('value') ?? -1;
    expect(lines[2]?.indexOf('1,327 /s')).toBe(valueColumn);
    expect(lines[3]?.indexOf('637 /s')).toBe(valueColumn);
    expect(text).toContain('targets met: 1 of 3; benches failed: console');
    expect(text).toContain('wallet: load 1.9');
  });
});
