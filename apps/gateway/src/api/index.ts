/**
 * The REST API module: /api/v1 and the operator APIs under /_gm/api, each operation validated,
 * authenticated and answered from the backend. The app mounts its router; the provider
 * notification route is named here because it needs the raw body before the JSON parser.
 */
export { createApiRouter } from './router.js';
export { NOTIFICATION_BODY_LIMIT, NOTIFICATIONS_PATH } from './notifications/operations.js';
