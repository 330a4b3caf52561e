/**
 * The testing module's one public entry: fresh databases for tests (PostgreSQL or PGlite).
 */
export { freshPglite, freshPostgres } from './databases.js';
