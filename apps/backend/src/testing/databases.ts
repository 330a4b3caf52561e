import { randomBytes } from 'node:crypto';
import { adminQuery, testServerUrl } from '@wordgame/testkit';
import { openDatabase, type Database } from '../db/index.js';

export { testServerUrl };

/**
 * A fresh, empty PostgreSQL database on the test server, dropped again by `close()`. Each suite
 * gets its own so suites run in parallel without seeing each other's rows.
 */
export async function freshPostgres(): Promise<Database & { url: string }> {
  const serverUrl = testServerUrl();
  // eslint-disable-next-line no-restricted-syntax -- a unique database name, not a rule that depends on time
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, `create database ${name}`);
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
