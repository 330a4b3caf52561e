/**
 * The system module's one public entry: the health check and the SystemService. Only app.ts uses it.
 */
export { checkSystem } from './check.js';
export { systemService } from './service.js';
