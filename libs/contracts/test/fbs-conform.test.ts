import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The real check CI runs (tools/generate/fbs-conform.sh), exercised on small schemas in a scratch git repository. */
const SCRIPT = resolve(import.meta.dirname, '../../../tools/generate/fbs-conform.sh');

const ORDER = `namespace t;
/// An order as an older backend wrote it.
table Order {
  id: string;
  amount: long;
  currency: string;
}
enum Rail: byte { Stars, Card }
`;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A scratch repository holding the script, with one commit per entry of `history` (path -> text; null deletes). */
function repo(history: Record<string, string | null>[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'fbs-conform-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'tools/generate'), { recursive: true });
  mkdirSync(join(dir, 'fbs'));
  copyFileSync(SCRIPT, join(dir, 'tools/generate/fbs-conform.sh'));
  git(dir, 'init', '-q');
  for (const [n, files] of history.entries()) {
    for (const [path, text] of Object.entries(files)) {
      if (text === null) rmSync(join(dir, path));
      else writeFileSync(join(dir, path), text);
    }
    git(dir, 'add', '-A');
    git(dir, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-q', '--allow-empty', '-m', `step ${n}`);
  }
  return dir;
}

function git(dir: string, ...args: string[]): void {
  const run = spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
}

/** Runs the check in `dir` against HEAD~1; exit code and everything it printed. */
function conform(dir: string): { code: number | null; out: string } {
  const run = spawnSync('bash', [join(dir, 'tools/generate/fbs-conform.sh')], { cwd: dir, encoding: 'utf8' });
  return { code: run.status, out: `${run.stdout}${run.stderr}` };
}

/** The outcome of changing fbs/order.fbs from ORDER to `next` in one commit. */
const evolve = (next: string) => conform(repo([{ 'fbs/order.fbs': ORDER }, { 'fbs/order.fbs': next }]));

describe('fbs-conform.sh (additive-only FlatBuffers schemas against the previous commit)', () => {
  it('passes an appended field, a deprecated field, an appended enum value and a new table', () => {
    const next = ORDER.replace('  currency: string;\n', '  currency: string;\n  paid_at: long;\n')
      .replace('amount: long;', 'amount: long (deprecated);')
      .replace('{ Stars, Card }', '{ Stars, Card, Crypto }')
      .concat('table Refund { order_id: string; }\n');
    const result = evolve(next);
    expect(result).toMatchObject({ code: 0 });
    expect(result.out).toMatch(/1 schema\(s\) conform to HEAD~1/);
  });

  it("fails a field removed from the middle, naming the file and flatc's message", () => {
    const result = evolve(ORDER.replace('  amount: long;\n', ''));
    expect(result.code).toBe(1);
    expect(result.out).toContain('FAIL fbs/order.fbs is not an additive evolution of HEAD~1');
    expect(result.out).toContain("schemas don't conform: offsets differ for field: currency");
    expect(result.out).toContain('field t_Order.amount was removed or renamed');
  });

  it('fails a field removed from the end, which flatc --conform alone lets through', () => {
    const result = evolve(ORDER.replace('  currency: string;\n', ''));
    expect(result.code).toBe(1);
    expect(result.out).toContain('field t_Order.currency was removed or renamed');
  });

  it('fails reordered fields and an explicit renumbering', () => {
    const reordered = evolve(ORDER.replace('  id: string;\n  amount: long;\n', '  amount: long;\n  id: string;\n'));
    expect(reordered.code).toBe(1);
    expect(reordered.out).toMatch(/offsets differ for field: (id|amount)/);
    const renumbered = evolve(
      ORDER.replace('id: string;', 'id: string (id: 2);')
        .replace('amount: long;', 'amount: long (id: 0);')
        .replace('currency: string;', 'currency: string (id: 1);'),
    );
    expect(renumbered.code).toBe(1);
    expect(renumbered.out).toMatch(/offsets differ for field/);
  });

  it('fails a changed field type, a renamed field, a removed enum value and a removed table', () => {
    expect(evolve(ORDER.replace('amount: long;', 'amount: int;')).out).toContain('types differ for field: amount');
    expect(evolve(ORDER.replace('currency: string;', 'currency_code: string;')).out).toContain(
      'field t_Order.currency was removed or renamed',
    );
    expect(evolve(ORDER.replace('{ Stars, Card }', '{ Stars }')).out).toContain('enum value t_Rail.Card was removed or renamed');
    const noTable = evolve(`namespace t;\nenum Rail: byte { Stars, Card }\n`);
    expect(noTable.code).toBe(1);
    expect(noTable.out).toContain('t_Order was removed');
  });

  it('fails a removed schema file and skips a new one', () => {
    const removed = conform(
      repo([{ 'fbs/order.fbs': ORDER }, { 'fbs/order.fbs': null, 'fbs/other.fbs': 'namespace t;\ntable X { a: int; }\n' }]),
    );
    expect(removed.code).toBe(1);
    expect(removed.out).toContain('FAIL fbs/order.fbs: the schema was removed');
    expect(removed.out).toContain('fbs/other.fbs is new since HEAD~1: nothing to compare');
  });

  it('resolves includes in both versions: a field appended to an included table passes, one removed fails', () => {
    const wallet = 'include "order.fbs";\nnamespace t;\ntable Wallet { orders: [Order]; }\n';
    const grown = conform(
      repo([
        { 'fbs/order.fbs': ORDER, 'fbs/wallet.fbs': wallet },
        { 'fbs/order.fbs': ORDER.replace('  currency: string;\n', '  currency: string;\n  note: string;\n') },
      ]),
    );
    expect(grown).toMatchObject({ code: 0 });
    expect(grown.out).toContain('2 schema(s) conform');
    const shrunk = conform(
      repo([{ 'fbs/order.fbs': ORDER, 'fbs/wallet.fbs': wallet }, { 'fbs/order.fbs': ORDER.replace('  currency: string;\n', '') }]),
    );
    expect(shrunk.code).toBe(1);
    expect(shrunk.out).toContain('FAIL fbs/wallet.fbs');
    expect(shrunk.out).toContain('FAIL fbs/order.fbs');
  });

  it('passes with nothing to compare on a first commit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fbs-conform-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'tools/generate'), { recursive: true });
    copyFileSync(SCRIPT, join(dir, 'tools/generate/fbs-conform.sh'));
    git(dir, 'init', '-q');
    const none = conform(dir);
    expect(none).toMatchObject({ code: 0 });
    expect(none.out).toContain('no commit HEAD~1: nothing to compare');
    const first = conform(repo([{ 'fbs/order.fbs': ORDER }]));
    expect(first).toMatchObject({ code: 0 });
    expect(first.out).toContain('nothing to compare');
  });
});
