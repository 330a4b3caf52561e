import { randomBytes } from 'node:crypto';
import { adminQuery, testServerUrl } from '@wordgame/testkit';
import pg from 'pg';
import { migrateToLatest } from '../db/index.js';
import { freshMigratedPostgres, freshPostgres, migratedTemplateName } from './databases.js';

describe('fresh migrated databases', () => {
  it('are clones of one migrated template per migration set, made once however many suites start together', async () => {
    expect(migratedTemplateName()).toMatch(/^t_template_[0-9a-f]{16}$/);
    // A template of its own (the shared one stays for the suites running beside this one), built from nothing.
    const template = `${migratedTemplateName()}_t${randomBytes(3).toString('hex')}`;
    const clones = await Promise.all([0, 1, 2].map(() => freshMigratedPostgres({ template })));
    const empty = await freshPostgres();
    try {
      // Every migration there is: what an empty database gets from migrating, each clone already has.
      expect((await migrateToLatest(empty.db)).length).toBeGreaterThan(0);
      for (const clone of clones) expect(await migrateToLatest(clone.db)).toEqual([]);
      const admin = new pg.Client({ connectionString: testServerUrl() });
      await admin.connect();
      try {
        const found = await admin.query<{ datname: string }>("select datname from pg_database where datname like 't_template_%'");
        expect(found.rows.map((r) => r.datname)).toContain(template);
        expect(found.rows.filter((r) => r.datname === template)).toHaveLength(1);
        expect(found.rows.filter((r) => r.datname.startsWith(`${template}_`))).toEqual([]);
      } finally {
        await admin.end();
      }
    } finally {
      await Promise.all([...clones, empty].map((c) => c.close()));
      await adminQuery(testServerUrl(), `drop database if exists ${template}`);
    }
  }, 120_000);
});
