import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { adminQuery, testServerUrl } from '@wordgame/testkit';
import { migrateToLatest, openDatabase, type Database } from '../db/index.js';

export { testServerUrl };

/**
 * A fresh, empty PostgreSQL database on the test server, dropped again by `close()`. Each suite
 * gets its own so suites run in parallel without seeing each other's rows.
 */
export function freshPostgres(): Promise<Database & { url: string }> {
  return freshDatabase();
}

/** A new database on the test server (a copy of `template` when given), with a pool; `close()` drops it. */
async function freshDatabase(template?: string): Promise<Database & { url: string }> {
  const serverUrl = testServerUrl();
  // eslint-disable-next-line no-restricted-syntax -- a unique database name, not a rule that depends on time
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, `create database ${name}${template === undefined ? '' : ` template ${template}`}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), poolMax: 10 });
  return {
    ...database,
    url: url.toString(),
    close: async () => {
      await database.close();
      await adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
    },
  };
}

/**
 * The name of the migrated template on the test server for this checkout's migrations: a hash of
 * every migration file's name and text, so an edited or added migration makes a new template.
 */
export function migratedTemplateName(): string {
  const dir = fileURLToPath(new URL('../db/migrations/', import.meta.url));
  const hash = createHash('sha256');
  for (const file of readdirSync(dir)
    .filter((f) => /\.ts$/.test(f) && !f.endsWith('.test.ts'))
    .sort()) {
    hash.update(`${file}\0${readFileSync(`${dir}${file}`, 'utf8')}\0`);
  }
  return `t_template_${hash.digest('hex').slice(0, 16)}`;
}

/**
 * Makes the migrated template once per server and migration set: under an advisory lock, so
 * suites starting together wait for one another instead of migrating twice; built under a
 * temporary name and renamed when complete, so no suite ever clones a half-migrated one.
 */
async function ensureMigratedTemplate(serverUrl: string, template: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  await admin.connect();
  try {
    await admin.query('select pg_advisory_lock(hashtext($1))', [template]);
    const found = await admin.query('select 1 from pg_database where datname = $1', [template]);
    if (found.rowCount === 0) {
      const building = `${template}_${randomBytes(3).toString('hex')}`;
      await admin.query(`create database ${building}`);
      const url = new URL(serverUrl);
      url.pathname = `/${building}`;
      const database = await openDatabase({ url: url.toString(), poolMax: 2 });
      try {
        await migrateToLatest(database.db);
      } finally {
        await database.close();
      }
      await admin.query(`alter database ${building} rename to ${template}`);
    }
    return template;
  } finally {
    await admin.end();
  }
}

/**
 * A fresh database with every migration applied, cloned from the server's migrated template
 * (`create database … template …`: a file copy, instead of each suite running every migration).
 * Dropped again by `close()`. Suites that test the migrations themselves use freshPostgres();
 * `template` names another template (the template's own test, which must not drop the shared one).
 */
export async function freshMigratedPostgres(options: { template?: string } = {}): Promise<Database & { url: string }> {
  return freshDatabase(await ensureMigratedTemplate(testServerUrl(), options.template ?? migratedTemplateName()));
}
