import express, { type Router } from 'express';
import type { CachingSessionResolver } from '../auth/index.js';
import type { BackendClients } from '../backend/index.js';
import type { ApiMetrics } from '../http/index.js';
import { catalogAdminOperations } from './catalog-admin/operations.js';
import { codeOperations } from './codes/operations.js';
import type { DocumentedRoute } from './doc.js';
import { GAME_EVENTS_ROUTE, mountGameEvents } from './game/events.js';
import { gameOperations } from './game/operations.js';
import { notificationOperations } from './notifications/operations.js';
import { mountOperations } from './mount.js';
import type { Operation } from './operation.js';
import { apiDocument } from './openapi/document.js';
import type { JsonObject } from './openapi/json-schema.js';
import { OPENAPI_ROUTE, openApiOperation } from './openapi/route.js';
import { operatorSessionOperations } from './operator-session/operations.js';
import { orderOperations } from './orders/operations.js';
import { refundOperations } from './orders/refund.js';
import { privacyOperations } from './privacy/operations.js';
import { profileOperations } from './profile/operations.js';
import { sessionOperations } from './session/operations.js';
import { socialOperations } from './social/operations.js';
import { subscriptionOperations } from './subscriptions/operations.js';
import { walletOperations } from './wallet/operations.js';

/** What the REST API needs. */
export interface ApiDeps {
  backend: BackendClients;
  sessions: CachingSessionResolver;
  metrics: ApiMetrics;
}

/**
 * The gateway's operation table: every REST route of /api/v1 (provider notifications included) and
 * the operator APIs under /_gm/api (catalog editor, order refunds).
 */
export function operationTable(backend: BackendClients, sessions: CachingSessionResolver): Operation[] {
  return [
    ...sessionOperations(backend, sessions),
    ...profileOperations(backend),
    ...privacyOperations(backend),
    ...walletOperations(backend),
    ...codeOperations(backend),
    ...operatorSessionOperations(backend),
    ...catalogAdminOperations(backend),
    ...orderOperations(backend),
    ...subscriptionOperations(backend),
    ...refundOperations(backend),
    ...notificationOperations(backend),
    ...gameOperations(backend),
    ...socialOperations(backend, sessions),
  ];
}

/** Every route the API router serves, as the API document lists them: the table, the event stream, the document itself. */
export function documentedRoutes(table: readonly Operation[]): DocumentedRoute[] {
  return [...table, GAME_EVENTS_ROUTE, OPENAPI_ROUTE];
}

/** The API document of the operation table (what GET /api/v1/openapi.json serves and `npm run openapi` writes). */
export function documentOf(table: readonly Operation[]): JsonObject {
  return apiDocument(documentedRoutes(table));
}

/**
 * A router serving the whole operation table, the game's event stream and the API document built
 * from them (paths are absolute, so mount it at the root).
 */
export function createApiRouter(deps: ApiDeps): Router {
  const router = express.Router();
  const table = operationTable(deps.backend, deps.sessions);
  mountGameEvents(router, deps);
  mountOperations(router, [...table, openApiOperation(documentOf(table))], deps);
  return router;
}
