/**
 * The testing module's one public entry: fresh databases for tests (PostgreSQL or PGlite).
 */
export { freshMigratedPostgres, freshPglite, freshPostgres, migratedTemplateName } from './databases.js';
