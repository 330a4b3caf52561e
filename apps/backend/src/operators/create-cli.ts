import { ConfigError, withDevStack } from '@wordgame/config';
import { loadDatabaseConfig } from '../config/index.js';
import { openDatabase, migrateToLatest } from '../db/index.js';
import { upsertOperator } from './operators.store.js';
import { parseRoles } from './roles.js';

/**
 * `npm run operator:create -w apps/backend -- <login> <roles>` with the password in
 * OPERATOR_PASSWORD (never on the command line): creates a console operator, or resets the
 * password and roles of an existing login. Roles: comma-separated viewer,refunder,catalog_editor,moderator,granter.
 */
async function main(argv: string[]): Promise<number> {
  const [login, roleList] = argv;
  const password = process.env['OPERATOR_PASSWORD'];
  if (login === undefined || roleList === undefined || password === undefined) {
    process.stderr.write('usage: OPERATOR_PASSWORD=... operator:create <login> <viewer,refunder,catalog_editor,moderator,granter>\n');
    return 2;
  }
  const roles = parseRoles(roleList);
  const config = loadDatabaseConfig(withDevStack());
  const database = await openDatabase({ url: config.DATABASE_URL, poolMax: 2 });
  try {
    await migrateToLatest(database.db);
    const operator = await upsertOperator(database.db, login, password, roles);
    process.stdout.write(`${JSON.stringify({ operator_id: String(operator.id), login: operator.login, roles: operator.roles })}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `operator:create: ${err instanceof ConfigError || err instanceof RangeError ? err.message : String(err instanceof Error ? (err.stack ?? err.message) : err)}\n`,
    );
    process.exit(1);
  },
);
