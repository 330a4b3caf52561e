import type { RestErrorCode } from '@wordgame/contracts';
import type { Request } from 'express';
import { z } from 'zod';
import { ApiError } from '../http/index.js';

const INT64_MAX = 9_223_372_036_854_775_807n;

/**
 * A positive 64-bit id, sent as a JSON string of decimal digits (ids and amounts travel as strings
 * so they stay exact beyond 2^53), read as bigint. Numbers, signs, leading zeros, exponents and
 * anything beyond int64 are rejected.
 */
export const idParam = z
  .string()
  .regex(/^[1-9][0-9]{0,18}$/, 'must be a positive integer written as a string of decimal digits')
  .transform((v) => BigInt(v))
  .refine((v) => v <= INT64_MAX, 'is too large');

/**
 * A non-negative amount in minor units, sent as a JSON string of decimal digits (amounts travel as
 * strings so they stay exact beyond 2^53), read as bigint and bounded by int64.
 */
export const amountParam = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,18})$/, 'must be a non-negative integer written as decimal digits')
  .transform((v) => BigInt(v))
  .refine((v) => v <= INT64_MAX, 'is too large');

/** A bounded text without control characters (so it stays one line in titles and names). */
export const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((v) => !/\p{Cc}/u.test(v), 'must not contain control characters');

/** The edge code of a validation failure, fixed or chosen by the offending field's path. */
export type CodeFor = RestErrorCode | ((path: readonly PropertyKey[]) => RestErrorCode);

/** Chooses the code by the top-level field at fault; other fields get `fallback`. */
export function byField(codes: Readonly<Record<string, RestErrorCode>>, fallback: RestErrorCode = 'invalid_request'): CodeFor {
  return (path) => {
    const field = path[0];
    return typeof field === 'string' && Object.hasOwn(codes, field) ? (codes[field] ?? fallback) : fallback;
  };
}

/**
 * Parses a value with a zod schema; a failure is a 400 with a code (see `CodeFor`) and a message
 * naming the first offending field, so bad input never reaches the backend.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, code: CodeFor = 'invalid_request'): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path ?? [];
  const where = path.length > 0 ? `${path.map(String).join('.')}: ` : '';
  throw new ApiError(typeof code === 'function' ? code(path) : code, `${where}${issue?.message ?? 'invalid input'}`);
}

/**
 * The JSON body of a request. A request with a body must declare application/json (else 415); a
 * missing body reads as `{}` so the schema reports the missing fields.
 */
export function jsonBody(req: Request): unknown {
  const length = req.get('content-length');
  const hasBody = (length !== undefined && length !== '0') || req.get('transfer-encoding') !== undefined;
  if (hasBody && !req.is('application/json')) throw new ApiError('unsupported_media_type');
  return req.body ?? {};
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,128}$/;

/** The optional `Idempotency-Key` header; present but malformed is a 400. */
export function idempotencyKey(req: Request): string | undefined {
  const key = req.get('idempotency-key');
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(key)) throw new ApiError('invalid_idempotency_key');
  return key;
}
