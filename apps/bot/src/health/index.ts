/** The optional loopback health probe: /health (the report), /livez, and /readyz from the link and the platform's recent answers. */
export { createReadiness } from './readiness.js';
export { listenHealth, type HealthServer } from './server.js';
