/**
 * The testing module's one public entry: fresh PostgreSQL databases for tests.
 */
export { freshMigratedPostgres, freshPostgres, migratedTemplateName } from './databases.js';
