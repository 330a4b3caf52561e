import { backendSessionResolver, SessionCache } from '../../auth/index.js';
import { createBackendClients } from '../../backend/index.js';
import { documentOf, operationTable } from '../router.js';
import type { JsonObject } from './json-schema.js';

/** The committed document, relative to the repository root. */
export const OPENAPI_FILE = 'apps/gateway/openapi.json';

/**
 * The API document of the gateway's operation table, as the running gateway builds it. The table's
 * handlers close over backend clients; these are made but never called (clients connect lazily),
 * since only the routes' docs are read.
 */
export function generateDocument(): JsonObject {
  const backend = createBackendClients('http://127.0.0.1:9', 'document-generation');
  try {
    return documentOf(operationTable(backend, backendSessionResolver(backend.account, new SessionCache(0))));
  } finally {
    backend.close();
  }
}

/** The document as committed: two-space JSON with a final newline. */
export function renderDocument(document: JsonObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
