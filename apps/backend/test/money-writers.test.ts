import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUY_STATEMENT, noAdsExtendedText } from '../src/ledger/postings/index.js';

/** The money tables: only ledger/postings may write them. */
const MONEY_TABLES = ['wallet_segments', 'benefits', 'ledger_operations', 'ledger_daily_totals', 'ledger_rollup_days'];
const WRITER = 'ledger/postings/';
const tables = MONEY_TABLES.join('|');
const KYSELY_WRITE = new RegExp(`\\.(insertInto|updateTable|deleteFrom|mergeInto|replaceInto)\\(\\s*['"\`](${tables})\\b`, 'g');
const SQL_WRITE = new RegExp(
  `\\b(insert\\s+into|update|delete\\s+from|merge\\s+into|truncate(\\s+table)?)\\s+(only\\s+)?(${tables})\\b`,
  'gi',
);

/** The text with comments blanked (block comments, and line comments not preceded by a colon as in a URL). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:])\/\/.*$/gm, '$1');
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sources(p) : /\.m?ts$/.test(e.name) ? [p] : [];
  });
}

/** Every write of a money table outside the postings module, as "file:line: match" (migrations excluded). */
function moneyWriters(src: string): string[] {
  const found: string[] = [];
  for (const file of sources(src)) {
    const rel = relative(src, file).split(sep).join('/');
    if (rel.startsWith(WRITER) || rel.startsWith('db/migrations/')) continue;
    const text = withoutComments(readFileSync(file, 'utf8'));
    for (const re of [KYSELY_WRITE, SQL_WRITE]) {
      for (const m of text.matchAll(re)) found.push(`${rel}:${text.slice(0, m.index).split('\n').length}: ${m[0].replace(/\s+/g, ' ')}`);
    }
  }
  return found.sort();
}

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

describe('one writer of money', () => {
  it('no file outside ledger/postings writes wallet segments, benefits, ledger operations or daily totals', () => {
    expect(moneyWriters(SRC)).toEqual([]);
  });

  it('catches a kysely write, a raw SQL write and a write in a template, and ignores comments, reads and migrations', () => {
    const dir = mkdtempSync(join(tmpdir(), 'money-writers-'));
    const files: Record<string, string> = {
      'game/cheat.ts': "export const f = (db: any) => db\n  .updateTable('benefits').set({ hints: 99n });\n",
      'wallet/raw.ts': 'export const q = `\n  WITH x AS (\n    INSERT INTO ledger_operations (kind) VALUES (1)\n  ) SELECT 1`;\n',
      'console/wipe.ts': 'export const q = sql`delete   from ledger_daily_totals where true`;\n',
      'ok/comment.ts':
        '// we never update wallet_segments here\n/* insert into benefits is documented */\nexport const u = "https://x.test/";\n',
      'ok/read.ts': "export const r = (db: any) => db.selectFrom('wallet_segments').selectAll();\n",
      'ledger/postings/fine.ts': "export const w = (db: any) => db.insertInto('wallet_segments');\n",
      'db/migrations/0001_init.ts': 'export const m = `insert into benefits values (1)`;\n',
    };
    try {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
      expect(moneyWriters(dir)).toEqual([
        'console/wipe.ts:1: delete from ledger_daily_totals',
        "game/cheat.ts:2: .updateTable('benefits",
        'wallet/raw.ts:3: INSERT INTO ledger_operations',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the buy statement extends no-ads terms by the one rule (no-ads.ts), at both of its places', () => {
    expect(BUY_STATEMENT).toContain(noAdsExtendedText('b.no_ads_until', '$7::timestamptz', 'g.days'));
    expect(BUY_STATEMENT).toContain(noAdsExtendedText('b.no_ads_until', '$7::timestamptz', '(SELECT days FROM grant_)'));
    expect(BUY_STATEMENT.match(/interval '1 second'/g)).toHaveLength(3);
  });
});
