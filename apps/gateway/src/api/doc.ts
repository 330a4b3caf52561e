import type { z } from 'zod';
import type { AuthRequirement } from '../auth/index.js';
import type { DocErrorCode } from './openapi/error-table.js';

/** The success answer of a route: its status and, unless empty, its body's wire schema and media type. */
export interface SuccessDoc {
  status: number;
  description: string;
  /** The JSON body's schema as it is on the wire (bigints are decimal strings); absent = empty body. */
  body?: z.ZodType;
  /** Defaults to application/json; `text/event-stream` for the game's live events. */
  mediaType?: 'application/json' | 'text/event-stream';
}

/**
 * What the API document says about one route. The request schemas are the very zod objects the
 * handler parses with, so the document cannot drift from validation; `examples` are request bodies
 * that `body` accepts (a test parses each); `errors` are the route's own codes: the ones implied by
 * its auth, its JSON body and the backend call are added by the document builder.
 */
export interface OperationDoc {
  summary: string;
  description?: string;
  tag: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Named request bodies; at least one whenever `body` is set. */
  examples?: Readonly<Record<string, unknown>>;
  /** The body is read raw (any media type), not by the JSON parser. */
  rawBody?: boolean;
  /** The route reads an optional `Idempotency-Key` header. */
  idempotencyKey?: boolean;
  success: SuccessDoc;
  errors: readonly DocErrorCode[];
  /** The route does not call the backend (no `backend_unavailable`). */
  local?: boolean;
}

/** A route as the API document sees it: an operation of the table, or a route mounted beside it. */
export interface DocumentedRoute {
  name: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  auth: AuthRequirement;
  doc: OperationDoc;
}
