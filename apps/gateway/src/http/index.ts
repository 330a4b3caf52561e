/**
 * The HTTP edge's shared plumbing: the one error shape and the mapping of backend failures to it,
 * JSON answers, the door that sheds overload, the escaping HTML template of the server-rendered pages (console, confirmation
 * page), the request context and its log, the session context, and the API metrics.
 */
export { ApiError } from './api-error.js';
export { escapeHtml, html, raw, SafeHtml } from './html.js';
export { fromBackendError, retryAfterOf } from './backend-errors.js';
export { createDoor, SHED_RETRY_AFTER_SECONDS } from './door.js';
export { errorHandler, notFound } from './errors.js';
export { bigintAsString, sendJson } from './json.js';
export { createApiMetrics, type ApiMetrics } from './metrics.js';
export { bindRequestLog, requestContext, requestLogs } from './request-context.js';
export { asPlatformKind, asPlatformSubtype, isTrusted, PLATFORM_KINDS, PLATFORM_SUBTYPES, type SessionContext } from './session.js';
