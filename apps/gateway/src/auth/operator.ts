import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { ApiError } from '../http/api-error.js';
import { bindRequestLog } from '../http/request-context.js';
import { bearerToken } from './bearer.js';

/**
 * Guards the operator-only catalog editor with a static bearer token (`GATEWAY_OPERATOR_TOKEN`).
 * Unset: every request is 503 `operator_auth_not_configured` (fail closed). The comparison hashes
 * both sides and compares the digests in constant time, so neither content nor length leaks.
 */
export function requireOperator(configured: string | undefined): RequestHandler {
  const expected = configured === undefined ? undefined : digest(configured);
  return (req, _res, next) => {
    if (expected === undefined) throw new ApiError('operator_auth_not_configured');
    const presented = bearerToken(req);
    if (presented === undefined || !timingSafeEqual(digest(presented), expected)) throw new ApiError('operator_unauthenticated');
    bindRequestLog(req, { operator: true });
    next();
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
