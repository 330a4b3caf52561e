import type { CallOptions } from '@connectrpc/connect';
import type { RequestHandler } from 'express';
import { ApiError, bindRequestLog } from '../http/index.js';
import { BACKEND_CALL_TIMEOUT_MS, edgeHeaders } from './backend-headers.js';
import { bearerToken } from './bearer.js';

/** The backend header that names the operator of a call (its console session token). */
export const OPERATOR_SESSION_HEADER = 'x-operator-session';

/** Longest operator session token the backend accepts. */
const TOKEN_MAX = 128;

/**
 * Guards the operator API (/_gm/api): the caller presents an operator console session token as
 * `Authorization: Bearer` (from `POST /_gm/api/session`); a missing or malformed one is 401
 * `operator_unauthenticated`. The gateway does not judge the token: the backend resolves it to
 * the operator, checks that operator's role for the action and audits it, the same door as the
 * console's, so no action runs without a named operator.
 */
export function requireOperator(): RequestHandler {
  return (req, _res, next) => {
    const token = bearerToken(req);
    if (token === undefined || token.length > TOKEN_MAX) throw new ApiError('operator_unauthenticated');
    bindRequestLog(req, { operator: true });
    next();
  };
}

/** Backend call options for an operator API request: the edge headers and the operator's session token. */
export function operatorCallOptions(requestId: string, token: string, clientAddress?: string): CallOptions {
  return { headers: { ...edgeHeaders(requestId, clientAddress), [OPERATOR_SESSION_HEADER]: token }, timeoutMs: BACKEND_CALL_TIMEOUT_MS };
}
