import type { DocumentedRoute } from '../doc.js';
import { ALL_ERROR_CODES, errorMessage, errorStatus, type DocErrorCode as ErrorCode } from './error-table.js';
import type { JsonObject } from './json-schema.js';

const AUTH_ERRORS: Record<DocumentedRoute['auth'], readonly ErrorCode[]> = {
  none: [],
  session: ['unauthenticated', 'session_invalid'],
  trusted_session: ['unauthenticated', 'session_invalid', 'untrusted_session'],
  operator: ['operator_unauthenticated', 'operator_session_invalid', 'operator_forbidden'],
};

/**
 * Every edge code a route may answer: its own (doc.errors), those of its auth guard, of reading
 * its input (invalid_request for a schema without a field code; a JSON body's malformed_json,
 * body_too_large, unsupported_media_type), of the door every route is behind (overloaded), of the
 * backend call (backend_unavailable) or any failure (internal).
 */
export function errorCodesOf(route: DocumentedRoute): ErrorCode[] {
  const { doc } = route;
  const codes = new Set<ErrorCode>(AUTH_ERRORS[route.auth]);
  if (doc.params !== undefined || doc.query !== undefined || doc.body !== undefined) codes.add('invalid_request');
  if (doc.body !== undefined) {
    codes.add('body_too_large');
    if (doc.rawBody !== true) {
      codes.add('malformed_json');
      codes.add('unsupported_media_type');
    }
  }
  for (const code of doc.errors) codes.add(code);
  codes.add('overloaded');
  if (doc.local !== true) codes.add('backend_unavailable');
  codes.add('internal');
  return [...codes];
}

/** The one error body of the edge (components.schemas.Error): `{error:{code,message}}`. */
export const ERROR_SCHEMA: JsonObject = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: { code: { type: 'string', enum: ALL_ERROR_CODES }, message: { type: 'string' } },
    },
  },
};

/** The error body of one status, its code narrowed to the codes this route answers with it. */
function errorBodySchema(codes: readonly ErrorCode[]): JsonObject {
  return { allOf: [{ $ref: '#/components/schemas/Error' }], properties: { error: { properties: { code: { enum: [...codes] } } } } };
}

const RETRY_AFTER: JsonObject = {
  'Retry-After': { description: 'Whole seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } },
};

/** The error responses of a route, by status, each naming its codes and their default messages. */
export function errorResponses(route: DocumentedRoute): JsonObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) byStatus.set(errorStatus(code), [...(byStatus.get(errorStatus(code)) ?? []), code]);
  const out: JsonObject = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codes = byStatus.get(status) ?? [];
    const response: JsonObject = {
      description: codes.map((c) => `\`${c}\`: ${errorMessage(c)}`).join('; '),
      content: { 'application/json': { schema: errorBodySchema(codes) } },
    };
    if (codes.includes('rate_limited') || codes.includes('hint_locked') || codes.includes('overloaded')) response['headers'] = RETRY_AFTER;
    out[String(status)] = response;
  }
  return out;
}
