/**
 * The REST API module: /api/v1 and the operator APIs under /_gm/api, each operation validated,
 * authenticated and answered from the backend. The app mounts its router; the provider
 * notification route is named here because it needs the raw body before the JSON parser, and the
 * data export's reader because the console downloads the same document.
 */
export { createApiRouter } from './router.js';
export { fixedChain, runChain } from './mount.js';
export { WALLET_PATH } from './wallet/operations.js';
export { NOTIFICATION_BODY_LIMIT, NOTIFICATIONS_PATH } from './notifications/operations.js';
export { exportAccountBody, readAccountExport } from './privacy/operations.js';
