import { sql } from 'kysely';
import { runPrepared, type Database } from './database.js';
import { migrateDown, migrateToLatest, migrateToZero } from './migrate.js';
import { migrations } from './migrations/index.js';
import { freshPostgres } from '../testing/index.js';

describe('database layer on PostgreSQL', () => {
  let database: Database;

  beforeAll(async () => {
    database = await freshPostgres();
  });
  afterAll(async () => {
    await database.close();
  });

  it('migrates up, down and up again', async () => {
    const names = Object.keys(migrations);
    expect(await migrateToLatest(database.db)).toEqual(names.map((n) => `Up ${n}`));
    expect(await migrateToLatest(database.db)).toEqual([]);
    expect(await tables(database)).toEqual(expect.arrayContaining(['accounts', 'platform_identities']));

    expect(await migrateToZero(database.db)).toEqual([...names].reverse().map((n) => `Down ${n}`));
    expect(await tables(database)).not.toContain('accounts');
    expect(await migrateDown(database.db)).toEqual([]);

    expect(await migrateToLatest(database.db)).toEqual(names.map((n) => `Up ${n}`));
    expect(await tables(database)).toEqual(expect.arrayContaining(['accounts', 'platform_identities']));
  });

  it('prepares a statement again when a migration changes what it returns (a column added while it is cached)', async () => {
    await sql`create table plan_probe (id int primary key)`.execute(database.db);
    await sql`insert into plan_probe values (1)`.execute(database.db);
    const read = () => runPrepared<Record<string, unknown>>(database.db, 'plan_probe_all', 'select * from plan_probe where id = $1', [1]);
    for (let i = 0; i < database.pool.options.max + 2; i += 1) expect(await read()).toEqual([{ id: 1 }]);
    await sql`alter table plan_probe add column note text not null default 'added'`.execute(database.db);
    for (let i = 0; i < database.pool.options.max + 2; i += 1) expect(await read()).toEqual([{ id: 1, note: 'added' }]);
    await sql`drop table plan_probe`.execute(database.db);
  });

  it('reads int8 as bigint, beyond 2^53, in rows, aggregates and arrays', async () => {
    const big = 2n ** 62n + 7n;
    await sql`create temporary table money_probe (amount bigint not null)`.execute(database.db);
    await sql`insert into money_probe (amount) values (${big}), (${-5n})`.execute(database.db);
    const rows = await sql<{ amount: bigint }>`select amount from money_probe order by amount`.execute(database.db);
    expect(rows.rows.map((r) => r.amount)).toEqual([-5n, big]);
    const sum = await sql<{ total: bigint }>`select sum(amount)::bigint as total from money_probe`.execute(database.db);
    expect(sum.rows[0]?.total).toBe(big - 5n);
    const count = await sql<{ n: bigint }>`select count(*) as n from money_probe`.execute(database.db);
    expect(count.rows[0]?.n).toBe(2n);
  });

  it('generates bigint identity keys and enforces unique platform identities', async () => {
    const account = await database.db.insertInto('accounts').defaultValues().returning(['id', 'status']).executeTakeFirstOrThrow();
    expect(typeof account.id).toBe('bigint');
    expect(account.status).toBe('active');
    const identity = { account_id: account.id, kind: 'telegram' as const, external_id: '123456789' };
    await database.db.insertInto('platform_identities').values(identity).execute();
    await expect(database.db.insertInto('platform_identities').values(identity).execute()).rejects.toThrow(/unique|duplicate/i);
  });

  it('refuses a product title the validator refuses: & < > " \', controls, bidi and separators; down restores the old check', async () => {
    const insert = (title: string) => database.db.insertInto('catalog_products').values({ title }).execute();
    const refused = [
      'a&b',
      'a<b',
      'a"b',
      "a'b",
      'a\u0001b',
      'a\u0085b',
      'a\u061cb',
      'a\u200eb',
      'a\u200fb',
      'a\u202eb',
      'a\u2066b',
      'a\u2069b',
      'a\u2028b',
      'a\u2029b',
    ];
    for (const title of refused) await expect(insert(title)).rejects.toThrow(/catalog_products_title_check/);
    await insert('100 chips \u2014 \u00e9t\u00e9 \ud83c\udf81');
    // Down to just before 0070 (the migration that widened the check), whatever came after it.
    for (let i = 0; i < 20 && !(await migrateDown(database.db)).includes('Down 0070_rate_limits'); i++);
    await insert('a\u202eb');
    await expect(insert('a&b')).rejects.toThrow(/catalog_products_title_check/);
    await sql`delete from catalog_products where title = ${'a\u202eb'}`.execute(database.db);
    await migrateToLatest(database.db);
    await expect(insert('a\u202eb')).rejects.toThrow(/catalog_products_title_check/);
  });

  it('0106 gives every existing product its English text from its title; down drops the texts and keeps the titles', async () => {
    for (let i = 0; i < 20 && !(await migrateDown(database.db)).includes('Down 0106_product_texts'); i++);
    expect(await tables(database)).not.toContain('catalog_product_texts');
    const { id } = await database.db
      .insertInto('catalog_products')
      .values({ title: 'Pack from before' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await migrateToLatest(database.db);
    const texts = await database.db.selectFrom('catalog_product_texts').selectAll().where('product_id', '=', id).execute();
    expect(texts).toEqual([{ product_id: id, locale: 'en', title: 'Pack from before', description: '' }]);
  });

  it('0107 renames unmatched_payments.order_ref to order_id without stranding a row or either release', async () => {
    for (let i = 0; i < 20 && !(await migrateDown(database.db)).includes('Down 0107_unmatched_order_id'); i++);
    const insertOld = (charge: string, order: string) =>
      sql`insert into unmatched_payments (provider, platform_charge_id, order_ref, amount, platform_user_id, reason)
          values ('telegram_stars', ${charge}, ${order}, 5, 7, 'unknown_order')`.execute(database.db);
    const both = async (charge: string) =>
      (
        await sql<{ order_id: string; order_ref: string }>`
          select order_id, order_ref from unmatched_payments where platform_charge_id = ${charge}`.execute(database.db)
      ).rows[0];
    await insertOld('c-0107-before', 'order-before');
    await migrateToLatest(database.db);
    expect(await both('c-0107-before')).toEqual({ order_id: 'order-before', order_ref: 'order-before' });
    // The previous release writes only order_ref; this one only order_id: each column is filled for the other.
    await insertOld('c-0107-old', 'order-old');
    expect(await both('c-0107-old')).toEqual({ order_id: 'order-old', order_ref: 'order-old' });
    await database.db
      .insertInto('unmatched_payments')
      .values({
        provider: 'telegram_stars',
        platform_charge_id: 'c-0107-new',
        order_id: 'order-new',
        amount: 5n,
        platform_user_id: 7n,
        reason: 'unknown_order',
      })
      .execute();
    expect(await both('c-0107-new')).toEqual({ order_id: 'order-new', order_ref: 'order-new' });
    for (let i = 0; i < 20 && !(await migrateDown(database.db)).includes('Down 0107_unmatched_order_id'); i++);
    const refs = await sql<{ order_ref: string }>`
      select order_ref from unmatched_payments where platform_charge_id like 'c-0107-%' order by platform_charge_id`.execute(database.db);
    expect(refs.rows.map((r) => r.order_ref)).toEqual(['order-before', 'order-new', 'order-old']);
    await migrateToLatest(database.db);
    await sql`delete from unmatched_payments where platform_charge_id like 'c-0107-%'`.execute(database.db);
  });
});

async function tables(database: Database): Promise<string[]> {
  const result = await sql<{ name: string }>`
    select table_name as name from information_schema.tables where table_schema = 'public'
  `.execute(database.db);
  return result.rows.map((r) => r.name);
}
