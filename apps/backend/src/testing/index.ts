/**
 * The testing module's one public entry: fresh PostgreSQL databases for tests.
 */
export { freshPostgres } from './databases.js';
