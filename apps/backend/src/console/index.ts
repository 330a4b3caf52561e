/**
 * The operators' console (`/_gm`) module's one public entry: its ConsoleService and the revenue
 * page's RevenueService. Only app.ts registers them.
 */
export { revenueService } from './revenue.js';
export { consoleService } from './service.js';
