import { checkScript } from './support/check-script.js';

const { run, tree: checkTree } = checkScript('sql-homes.mjs');

/** A query through the builder, as a module's code would write it. */
const QUERY = [
  "import type { Kysely } from 'kysely';",
  'export async function names(db: Kysely<{ t: { name: string } }>) {',
  "  return db.selectFrom('t').select('name').execute();",
  '}',
  '',
].join('\n');

/** kysely's sql tag, aliased, with a fragment inside. */
const SQL_TAG = [
  "import { sql as q, type Kysely } from 'kysely';",
  'export async function one(db: Kysely<object>) {',
  '  return q<number>`select ${q.lit(1)}`.execute(db);',
  '}',
  '',
].join('\n');

describe('SQL only in store files', () => {
  it('refuses a selectFrom in a service file, naming file, line and call', () => {
    const r = checkTree({ 'orders/service.ts': QUERY, 'orders/index.ts': "export { names } from './service.js';\n" });
    expect(r.out).toContain("<src>/orders/service.ts:3: .selectFrom('t') outside a store file");
    expect(r.out).toContain('2 file(s) checked: 0 SQL statement(s) in 0 store file(s), 0 in tests, 1 outside a store file');
    expect(r.status).toBe(1);
  });

  it('passes the same query in x.store.ts, the top-level ledger/, db/ and store/ folders, a table file and a test', () => {
    const r = checkTree({
      'a/a.store.ts': QUERY,
      'c/refunds/refunds.store.ts': QUERY,
      'store/read.ts': QUERY,
      'ledger/postings/post.ts': QUERY,
      'db/migrations/0001_init.ts': SQL_TAG,
      'f/f.table.ts': QUERY,
      'g/service.test.ts': QUERY,
      'h/service.ts': "import { names } from '../a/a.store.js';\nexport const n = names;\n",
    });
    expect(r.out).toContain('8 file(s) checked: 6 SQL statement(s) in 6 store file(s), 1 in tests, 0 outside a store file');
    expect(r.status).toBe(0);
  });

  it('has one store suffix: store.ts, repository.ts, x.repository.ts and a nested store/ folder are refused', () => {
    const r = checkTree({
      'a/store.ts': QUERY,
      'b/repository.ts': QUERY,
      'd/orders.repository.ts': QUERY,
      'e/store/read.ts': QUERY,
    });
    for (const file of ['a/store.ts', 'b/repository.ts', 'd/orders.repository.ts', 'e/store/read.ts']) {
      expect(r.out).toContain(`<src>/${file}:3: .selectFrom('t') outside a store file`);
    }
    expect(r.status).toBe(1);
  });

  it("sees better-sqlite3's statements: prepare and exec of SQL text and pragma, not a regex's exec", () => {
    const r = checkTree({
      'payments/outbox.ts': [
        "import type Database from 'better-sqlite3';",
        'export const open = (db: Database.Database, table: string, re: RegExp, s: string) => [',
        '  db.prepare(`SELECT charge_id FROM ${table} WHERE next_attempt_at <= ?`),',
        "  db.exec('CREATE INDEX IF NOT EXISTS due ON payment_outbox (next_attempt_at)'),",
        "  db.pragma('journal_mode = WAL'),",
        '  re.exec(s),',
        '];',
        '',
      ].join('\n'),
    });
    expect(r.out).toContain('<src>/payments/outbox.ts:3: .prepare(`SELECT charge_id FROM`) outside a store file');
    expect(r.out).toContain('<src>/payments/outbox.ts:4:');
    expect(r.out).toContain("<src>/payments/outbox.ts:5: .pragma('journal_mode = WAL') outside a store file");
    expect(r.out).toContain('3 SQL statement(s) outside a store file');
    expect(r.status).toBe(1);
  });

  it('refuses a kysely sql tag (aliased, with a type argument) outside a store file, once per statement', () => {
    const r = checkTree({ 'system/check.ts': SQL_TAG });
    expect(r.out).toContain('<src>/system/check.ts:3: sql`select ${q.lit(1)}` outside a store file');
    expect(r.out).toContain('1 SQL statement(s) outside a store file');
    expect(r.status).toBe(1);
  });

  it('refuses sql through a namespace import, a lone sql.raw and a query nested in a builder chain counts once', () => {
    const r = checkTree({
      'a/ns.ts': "import * as k from 'kysely';\nexport const one = k.sql`select 1`;\n",
      'a/raw.ts': "import { sql } from 'kysely';\nexport const fragment = sql.raw('now()');\n",
      'a/chain.ts': [
        "import { sql, type Kysely } from 'kysely';",
        'export const bump = (db: Kysely<{ t: { id: number; n: number } }>) =>',
        "  db.updateTable('t').set({ n: sql`n + 1` }).where('id', 'in', db.selectFrom('t').select('id')).execute();",
        '',
      ].join('\n'),
    });
    expect(r.out).toContain('<src>/a/ns.ts:2: sql`select 1` outside a store file');
    expect(r.out).toContain('<src>/a/raw.ts:2: sql.raw( outside a store file');
    expect(r.out).toContain("<src>/a/chain.ts:3: .updateTable('t') outside a store file");
    expect(r.out).toContain('3 SQL statement(s) outside a store file');
    expect(r.status).toBe(1);
  });

  it('refuses a CTE on a db or transaction but not Array.prototype.with', () => {
    const cte = checkTree({
      'a/cte.ts': [
        "import type { Kysely } from 'kysely';",
        "export const q = (trx: Kysely<{ t: { id: number } }>) => trx.with('x', (w) => w.selectFrom('t').select('id'));",
        '',
      ].join('\n'),
    });
    expect(cte.out).toContain("<src>/a/cte.ts:2: .with('x') outside a store file");
    expect(cte.status).toBe(1);
    const array = checkTree({ 'a/list.ts': 'export const xs = [1, 2, 3].with(0, 9);\n' });
    expect(array.status).toBe(0);
  });

  it('passes a sql that is not kysely: a local helper, one imported from elsewhere, a type-only import', () => {
    const r = checkTree({
      'a/local.ts':
        'const sql = (parts: TemplateStringsArray) => parts.join("");\nexport const s = sql`select 1`;\nexport const t = sql.name;\n',
      'a/other.ts': "import { sql } from './local-sql.js';\nexport const s = sql`select 1`;\n",
      'a/local-sql.ts': 'export const sql = (parts: TemplateStringsArray) => parts.join("");\n',
      'a/typed.ts': "import type { sql } from 'kysely';\nexport type S = typeof sql;\n",
    });
    expect(r.out).toContain('4 file(s) checked: 0 SQL statement(s) in 0 store file(s), 0 in tests, 0 outside a store file');
    expect(r.status).toBe(0);
  });

  it('refuses statement text run directly outside a store: runPrepared, executeQuery, CompiledQuery.raw', () => {
    const RAW = [
      "import { CompiledQuery, type Kysely } from 'kysely';",
      "import { runPrepared } from '../db/index.js';",
      'export async function buy(db: Kysely<object>, text: string) {',
      "  await runPrepared(db, 'buy', text, []);",
      '  return db.executeQuery(CompiledQuery.raw(text, []));',
      '}',
      '',
    ].join('\n');
    const refused = checkTree({ 'wallet/buy.ts': RAW });
    expect(refused.out).toContain('<src>/wallet/buy.ts:4: runPrepared( outside a store file');
    expect(refused.out).toContain('<src>/wallet/buy.ts:5: .executeQuery( outside a store file');
    expect(refused.status).toBe(1);
    const inLedger = checkTree({ 'ledger/postings/buy.ts': RAW });
    expect(inLedger.out).toContain('2 SQL statement(s) in 1 store file(s), 0 in tests, 0 outside a store file');
    expect(inLedger.status).toBe(0);
  });

  it("checks the backend, the gateway and the bot by default; the gateway holds no SQL, the bot's is all in store files", () => {
    const all = run();
    expect(all.out).toContain('apps/backend/src: ');
    expect(all.out).toMatch(/apps\/gateway\/src: \d+ file\(s\) checked: 0 SQL statement\(s\) in 0 store file\(s\), 0 in tests, 0 outside/);
    expect(all.out).toMatch(
      /apps\/bot\/src: \d+ file\(s\) checked: [1-9]\d* SQL statement\(s\) in [1-9]\d* store file\(s\), 0 in tests, 0 outside/,
    );
    const apps = run('apps/gateway/src', 'apps/bot/src');
    expect(apps.status).toBe(0);
    expect(run('no/such/folder').status).toBe(2);
  });
});
