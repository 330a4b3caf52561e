import { z } from 'zod';
import type { DocumentedRoute } from '../doc.js';
import type { Operation } from '../operation.js';
import { OPENAPI_PATH } from './document.js';
import type { JsonObject } from './json-schema.js';

/** The route serving the API document. */
export const OPENAPI_ROUTE: DocumentedRoute = {
  name: 'api.openapi',
  method: 'get',
  path: OPENAPI_PATH,
  auth: 'none',
  doc: {
    tag: 'meta',
    summary: 'This document (OpenAPI 3.1)',
    success: { status: 200, description: 'The OpenAPI document.', body: z.record(z.string(), z.unknown()) },
    errors: [],
    local: true,
  },
};

/** Serves `document` (built once at mount time) at GET /api/v1/openapi.json without authentication. */
export function openApiOperation(document: JsonObject): Operation {
  return {
    ...OPENAPI_ROUTE,
    handle() {
      return Promise.resolve({ status: 200, body: document });
    },
  };
}
