import { checkScript } from './support/check-script.js';

const { run, tree: checkTree } = checkScript('table-owners.mjs');

/** A module's table file: adds `tables` to DB by declaration merging, as the backend's *.table.ts do. */
function tableFile(...tables: string[]): string {
  return [
    'export interface Row { id: bigint }',
    "declare module '../db/index.js' {",
    '  interface DB {',
    ...tables.map((t) => `    ${t}: Row;`),
    '  }',
    '}',
    '',
  ].join('\n');
}

/** Two modules: accounts owns accounts and sessions, social owns blocks. */
const MODULES = {
  'accounts/accounts.table.ts': tableFile('accounts', 'sessions'),
  'social/social.table.ts': tableFile('blocks'),
};

/** A store file whose body is `lines`, with kysely's sql tag in scope. */
function store(...lines: string[]): string {
  return ["import { sql, type Transaction } from 'kysely';", 'declare const trx: Transaction<never>;', ...lines, ''].join('\n');
}

describe('one writer per table', () => {
  it("refuses a builder write of another module's table, naming file, line, table and owner", () => {
    const r = checkTree({
      ...MODULES,
      'social/store.ts': store(
        "export const a = trx.updateTable('accounts as a').set({ status: 'deleted' });",
        "export const b = trx.deleteFrom(['sessions', 'blocks']);",
        "export const c = trx.insertInto('accounts').values({});",
      ),
    });
    expect(r.out).toContain(
      "<src>/social/store.ts:3: .updateTable('accounts as a'): social writes accounts, owned by accounts: call a function of accounts's index.ts (pass the transaction)",
    );
    expect(r.out).toContain("<src>/social/store.ts:4: .deleteFrom(['sessions', 'blocks']): social writes sessions, owned by accounts");
    expect(r.out).toContain("<src>/social/store.ts:5: .insertInto('accounts'): social writes accounts, owned by accounts");
    expect(r.out).not.toContain('writes blocks');
    expect(r.out).toContain("3 table(s) owned, 3 file(s) checked: 4 write(s), 0 of another module's table by exception, 3 problem(s)");
    expect(r.status).toBe(1);
  });

  it("passes a module writing its own tables and reading (joining) another module's", () => {
    const r = checkTree({
      ...MODULES,
      'social/store.ts': store(
        "export const a = trx.insertInto('blocks').values({});",
        "export const b = trx.selectFrom('blocks').innerJoin('accounts', 'accounts.id', 'blocks.id').selectAll();",
        'export const c = sql`select status from accounts where id = 1`;',
        "export const d = trx.selectFrom('blocks as b').innerJoin('accounts as a', 'a.id', 'b.id').selectAll().forUpdate().of('b');",
      ),
      'accounts/repository.ts': store("export const s = trx.deleteFrom('sessions').where('id', '=', 1n);"),
    });
    expect(r.out).toContain("3 table(s) owned, 4 file(s) checked: 3 write(s), 0 of another module's table by exception, 0 problem(s)");
    expect(r.status).toBe(0);
  });

  it("refuses a row lock taken on another module's table: the chain's FROM, a join, through a variable, narrowed by of()", () => {
    const r = checkTree({
      ...MODULES,
      'social/store.ts': store(
        "export const a = trx.selectFrom('accounts').select('status').forUpdate();",
        'export function b(lock: boolean) {',
        "  let q = trx.selectFrom('blocks').selectAll();",
        '  if (lock) q = q.forUpdate();',
        '  return q;',
        '}',
        "export const c = trx.selectFrom('blocks as b').innerJoin('accounts as a', 'a.id', 'b.id').selectAll().forNoKeyUpdate();",
        "export const d = trx.selectFrom('blocks as b').innerJoin('sessions as s', 's.id', 'b.id').selectAll().forUpdate().of('s');",
        'export function e(lock: boolean) {',
        "  let q = trx.selectFrom('accounts').selectAll();",
        '  if (lock) q = q.forUpdate();',
        '  return q;',
        '}',
      ),
    });
    expect(r.out).toContain('<src>/social/store.ts:3: .forUpdate() on accounts: social writes accounts, owned by accounts');
    expect(r.out).toContain('<src>/social/store.ts:9: .forNoKeyUpdate() on accounts: social writes accounts, owned by accounts');
    expect(r.out).toContain('<src>/social/store.ts:10: .forUpdate() on sessions: social writes sessions, owned by accounts');
    expect(r.out).toContain('<src>/social/store.ts:13: .forUpdate() on accounts: social writes accounts, owned by accounts');
    expect(r.out).not.toMatch(/store\.ts:(6|9|10): \.\w+\(\) on blocks: social writes/);
    expect(r.out).toContain('4 problem(s)');
    expect(r.status).toBe(1);
  });

  it("refuses raw SQL writing or locking another module's table: the sql tag, a plain constant run raw, a CTE body", () => {
    const r = checkTree({
      ...MODULES,
      'social/store.ts': store(
        'export const a = (id: bigint) => sql`update accounts set status = ${id} where id = ${id}`;',
        'export const B = `',
        'WITH gone AS (DELETE FROM ONLY public."sessions" WHERE account_id = $1 RETURNING 1)',
        'INSERT INTO blocks SELECT 1 FROM gone',
        '`;',
        "export const c = 'select id from accounts a where (select count(*) from blocks) > 0 for update';",
        'export const d = sql`truncate table sessions`;',
      ),
    });
    expect(r.out).toContain('<src>/social/store.ts:3: sql: update accounts set: social writes accounts, owned by accounts');
    expect(r.out).toContain('<src>/social/store.ts:5: sql: delete from only public."sessions": social writes sessions, owned by accounts');
    expect(r.out).toContain('<src>/social/store.ts:8: sql: for update on accounts: social writes accounts, owned by accounts');
    expect(r.out).toContain('<src>/social/store.ts:9: sql: truncate table sessions: social writes sessions, owned by accounts');
    expect(r.out).not.toContain('writes blocks');
    expect(r.out).toContain('4 problem(s)');
    expect(r.status).toBe(1);
  });

  it('passes raw SQL on its own tables, an upsert (do update set), a CTE named like a write target, and the text of comments', () => {
    const r = checkTree({
      ...MODULES,
      'social/store.ts': store(
        '// update accounts set status = 1 (a comment is not SQL)',
        'export const a = sql`insert into blocks (id) values (1) on conflict (id) do update set id = excluded.id`;',
        'export const b = sql`with x as (select id from accounts) update blocks set id = 1 from x`;',
        "export const e = 'select b.id from blocks b join accounts a on a.id = b.id where (select 1 from sessions) = 1 for update of b';",
        'export const c = sql`with accounts_gone as (select 1) delete from accounts_gone`;',
      ),
    });
    expect(r.out).toContain('0 problem(s)');
    expect(r.status).toBe(0);
  });

  it('refuses a write of a table no *.table.ts declares, one whose table it cannot name, and a table two modules declare', () => {
    const r = checkTree({
      ...MODULES,
      'game/game.table.ts': tableFile('blocks'),
      'social/store.ts': store(
        'export const a = sql`insert into audit_log (x) values (1)`;',
        "const table = 'blocks' as const;",
        'export const b = trx.deleteFrom(table);',
      ),
    });
    expect(r.out).toContain('<src>/social/store.ts:3: sql: insert into audit_log: writes audit_log, which no *.table.ts declares');
    expect(r.out).toContain('<src>/social/store.ts:5: .deleteFrom(table): the table it writes cannot be named');
    expect(r.out).toMatch(/<src>\/(game\/game|social\/social)\.table\.ts: table blocks is declared by \w+ and by \w+: one owner per table/);
    expect(r.status).toBe(1);
  });

  it('does not check tests or db/ (migrations write every table)', () => {
    const r = checkTree({
      ...MODULES,
      'social/store.test.ts': store("export const a = trx.updateTable('accounts');"),
      'db/migrations/0001_init.ts': store('export const m = sql`insert into accounts (id) values (1)`;'),
    });
    expect(r.out).toContain('3 table(s) owned, 2 file(s) checked: 0 write(s)');
    expect(r.status).toBe(0);
  });

  it('lets an exception through with its reason, and fails one that matches no write any more', () => {
    const tree = {
      ...MODULES,
      'payments/payments.table.ts': tableFile('orders', 'payment_events'),
      'ledger/postings/credit.ts': store(
        "export const a = trx.with('o', (q) => q.updateTable('orders').set({ state: 'paid' }).returningAll())",
        "  .with('ev', (q) => q.insertInto('payment_events').values({}).returningAll()).selectFrom('o').selectAll();",
      ),
    };
    const ok = checkTree(tree);
    expect(ok.out).toContain(
      "<src>/ledger/postings/credit.ts:3: .updateTable('orders'): writes orders (owned by payments), an exception: the credit statement",
    );
    expect(ok.out).toContain("2 of another module's table by exception, 0 problem(s)");
    expect(ok.status).toBe(0);
    const stale = checkTree({
      ...tree,
      'ledger/postings/credit.ts': store("export const a = trx.updateTable('orders').set({ state: 'paid' });"),
    });
    expect(stale.out).toContain(
      '<src>/ledger/postings/credit.ts: exception for payment_events matches no write: remove it from OWNERSHIP_EXCEPTIONS',
    );
    expect(stale.status).toBe(1);
    const elsewhere = checkTree({
      ...tree,
      'ledger/postings/other.ts': store("export const a = trx.updateTable('orders').set({ state: 'paid' });"),
    });
    expect(elsewhere.out).toContain("<src>/ledger/postings/other.ts:3: .updateTable('orders'): ledger writes orders, owned by payments");
    expect(elsewhere.status).toBe(1);
  });

  it("checks the backend by default: every write in its owner's module but the listed exceptions", () => {
    const r = run();
    expect(r.out).toMatch(
      /apps\/backend\/src: \d+ table\(s\) owned, \d+ file\(s\) checked: \d+ write\(s\), 3 of another module's table by exception, 0 problem\(s\)/,
    );
    expect(r.out).toContain('apps/backend/src/ledger/postings/buy.ts');
    expect(r.status).toBe(0);
    expect(run('no/such/folder').status).toBe(2);
  });
});
