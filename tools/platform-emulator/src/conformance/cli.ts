import { writeFileSync } from 'node:fs';
import { SCHEMA_PATH, committedBotApiSchema, generateBotApiSchema } from './schema.js';

/**
 * `npm run bot-api-schema` writes schema/bot-api.schema.json from @grammyjs/types; with `--check`
 * it only compares and exits 1 when the committed file is stale (the emulator's drift test does the
 * same inside `nx test platform-emulator`).
 */
const fresh = generateBotApiSchema();
if (process.argv.includes('--check')) {
  if (committedBotApiSchema() !== fresh) {
    process.stderr.write(`${SCHEMA_PATH} is stale: run npm run bot-api-schema\n`);
    process.exit(1);
  }
  process.stdout.write('bot-api schema up to date\n');
} else {
  writeFileSync(SCHEMA_PATH, fresh);
  process.stdout.write(`wrote ${SCHEMA_PATH}\n`);
}
