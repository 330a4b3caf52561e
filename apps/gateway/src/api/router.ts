import express, { type Router } from 'express';
import type { CachingSessionResolver } from '../auth/resolver.js';
import type { BackendClients } from '../backend/client.js';
import type { ApiMetrics } from '../http/metrics.js';
import { catalogAdminOperations } from './catalog-admin/operations.js';
import { mountGameEvents } from './game/events.js';
import { gameOperations } from './game/operations.js';
import { intakeOperations } from './intake/operations.js';
import { mountOperations } from './mount.js';
import type { Operation } from './operation.js';
import { operatorSessionOperations } from './operator-session/operations.js';
import { orderOperations } from './orders/operations.js';
import { refundOperations } from './orders/refund.js';
import { profileOperations } from './profile/operations.js';
import { sessionOperations } from './session/operations.js';
import { socialOperations } from './social/operations.js';
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
    ...walletOperations(backend),
    ...operatorSessionOperations(backend),
    ...catalogAdminOperations(backend),
    ...orderOperations(backend),
    ...refundOperations(backend),
    ...intakeOperations(backend),
    ...gameOperations(backend),
    ...socialOperations(backend, sessions),
  ];
}

/** A router serving the whole operation table (paths are absolute, so mount it at the root). */
export function createApiRouter(deps: ApiDeps): Router {
  const router = express.Router();
  mountGameEvents(router, deps);
  mountOperations(router, operationTable(deps.backend, deps.sessions), deps);
  return router;
}
