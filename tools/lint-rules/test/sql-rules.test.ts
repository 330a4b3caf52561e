import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import tsParser from '@typescript-eslint/parser';
import { RuleTester } from 'eslint';
import { noFeatureCycle } from '../src/no-feature-cycle.js';
import { oneWriterPerTable, sqlInStoreFiles } from '../src/sql-rules.js';

/** A throwaway app tree: `src/` with two modules, each declaring its table. */
const repo = mkdtempSync(join(tmpdir(), 'lint-rules-'));
const files: Record<string, string> = {
  'src/orders/orders.table.ts': 'export interface DB { orders: { id: string } }\n',
  'src/accounts/accounts.table.ts': 'export interface DB { accounts: { id: string } }\n',
};
for (const [rel, text] of Object.entries(files)) {
  mkdirSync(dirname(join(repo, rel)), { recursive: true });
  writeFileSync(join(repo, rel), text);
}
afterAll(() => rmSync(repo, { recursive: true, force: true }));

const options = [{ repo, roots: ['src'] }];
const at = (rel: string) => join(repo, rel);
const tester = new RuleTester({ languageOptions: { parser: tsParser, ecmaVersion: 2022, sourceType: 'module' } });

const QUERY = "export const names = (db: any) => db.selectFrom('orders').select('id').execute();";
const SQLITE = "export const due = (db: any) => db.prepare('SELECT charge_id FROM payment_outbox WHERE next_attempt_at <= ?');";

describe('sql-in-store-files', () => {
  tester.run('sql-in-store-files', sqlInStoreFiles, {
    valid: [
      { code: QUERY, filename: at('src/orders/orders.store.ts'), options },
      { code: QUERY, filename: at('src/ledger/postings/post.ts'), options },
      { code: QUERY, filename: at('src/orders/orders.test.ts'), options },
      { code: SQLITE, filename: at('src/payments/outbox.store.ts'), options },
      {
        code: "export const m = (re: RegExp, s: string) => re.exec('select me');",
        filename: at('src/orders/service.ts'),
        options: [{ repo, roots: ['elsewhere'] }],
      },
      { code: 'export const m = (re: RegExp, s: string) => re.exec(s);', filename: at('src/orders/service.ts'), options },
      { code: QUERY, filename: at('tools/x/service.ts'), options },
    ],
    invalid: [
      { code: QUERY, filename: at('src/orders/service.ts'), options, errors: [{ messageId: 'outside', line: 1 }] },
      { code: SQLITE, filename: at('src/payments/forwarder.ts'), options, errors: [{ messageId: 'outside' }] },
      {
        code: 'export const s = (db: any) => db.exec(`CREATE TABLE t (a)`);',
        filename: at('src/payments/setup.ts'),
        options,
        errors: [{ messageId: 'outside' }],
      },
    ],
  });
});

describe('one-writer-per-table', () => {
  tester.run('one-writer-per-table', oneWriterPerTable, {
    valid: [
      {
        code: "export const f = (trx: any) => trx.insertInto('orders').values({ id: 'a' }).execute();",
        filename: at('src/orders/orders.store.ts'),
        options,
      },
      {
        code: "export const f = (trx: any) => trx.selectFrom('accounts').selectAll().execute();",
        filename: at('src/orders/orders.store.ts'),
        options,
      },
      {
        code: "export const f = (trx: any) => trx.updateTable('accounts').set({ id: 'b' }).execute();",
        filename: at('src/db/migrations/0001.ts'),
        options,
      },
    ],
    invalid: [
      {
        code: "export const f = (trx: any) => trx.updateTable('accounts').set({ id: 'b' }).execute();",
        filename: at('src/orders/orders.store.ts'),
        options,
        errors: [{ messageId: 'foreign' }],
      },
      {
        code: 'export const f = (trx: any, t: string) => trx.deleteFrom(t).execute();',
        filename: at('src/orders/orders.store.ts'),
        options,
        errors: [{ messageId: 'unnamed' }],
      },
      {
        code: "import { sql } from 'kysely';\nexport const f = (trx: any) => sql`delete from audit_rows where id = 1`.execute(trx);",
        filename: at('src/orders/orders.store.ts'),
        options,
        errors: [{ messageId: 'undeclared', line: 2 }],
      },
    ],
  });
});

describe('no-feature-cycle', () => {
  const app = mkdtempSync(join(tmpdir(), 'lint-cycles-'));
  const tree: Record<string, string> = {
    'src/a/index.ts': "export { x } from './x.js';\n",
    'src/a/x.ts': "import { y } from '../b/index.js';\nexport const x = y;\n",
    'src/b/index.ts': "export type { Y } from './y.js';\nexport const y = 1;\n",
    'src/b/y.ts': "import type { x } from '../a/index.js';\nexport type Y = typeof x;\n",
    'src/c/index.ts': "import { y } from '../b/index.js';\nexport const c = y;\n",
  };
  for (const [rel, text] of Object.entries(tree)) {
    mkdirSync(dirname(join(app, rel)), { recursive: true });
    writeFileSync(join(app, rel), text);
  }
  afterAll(() => rmSync(app, { recursive: true, force: true }));
  const cycleOptions = [{ repo: app, roots: ['src'] }];
  tester.run('no-feature-cycle', noFeatureCycle, {
    valid: [
      { code: tree['src/c/index.ts'] ?? '', filename: join(app, 'src/c/index.ts'), options: cycleOptions },
      { code: "import { x } from '../a/index.js';\n", filename: join(app, 'src/b/y.test.ts'), options: cycleOptions },
    ],
    invalid: [
      { code: tree['src/a/x.ts'] ?? '', filename: join(app, 'src/a/x.ts'), options: cycleOptions, errors: [{ messageId: 'cycle' }] },
      { code: tree['src/b/y.ts'] ?? '', filename: join(app, 'src/b/y.ts'), options: cycleOptions, errors: [{ messageId: 'cycle' }] },
    ],
  });
});
