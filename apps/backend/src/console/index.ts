/**
 * The operators' console (`/_gm`) module's one public entry: its ConsoleService. Only app.ts registers it.
 */
export { consoleService } from './service.js';
