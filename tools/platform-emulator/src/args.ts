import { badRequest } from './errors.js';
import type { Params } from './params.js';

/**
 * Readers for single method parameters that accept both JSON-typed values and the string values of
 * forms and query strings, as the Bot API does. Absent and `null` read as undefined.
 */

/** A string parameter; numbers and booleans read as their text. */
export function stringArg(params: Params, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** A required string: absent or empty fails with Telegram's `parameter "x" is required`. */
export function requiredStringArg(params: Params, name: string): string {
  const value = stringArg(params, name);
  if (value === undefined || value === '') throw badRequest(`parameter "${name}" is required`);
  return value;
}

/** An integer parameter: undefined when absent or empty, NaN when present but not an integer. */
export function intArg(params: Params, name: string): number | undefined {
  const value = params[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : Number.NaN;
  if (typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : Number.NaN;
  }
  return Number.NaN;
}

/** A boolean parameter: JSON booleans or the strings true/false, 1/0 (absent reads as false). */
export function boolArg(params: Params, name: string): boolean {
  const value = params[name];
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return ['true', '1', 'yes'].includes(value.trim().toLowerCase());
  return false;
}

/**
 * A parameter that is a JSON-serialised object or array in forms and a plain value in JSON bodies.
 * Text that does not parse fails with `Bad Request: <parseError>`.
 */
export function jsonArg(params: Params, name: string, parseError: string): unknown {
  const value = params[name];
  if (typeof value !== 'string') return value ?? undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw badRequest(parseError);
  }
}

/** Where `chat_id` points: a numeric id or a public `@username`. */
export type ChatRef = { id: number } | { username: string };

/** Reads `chat_id` (required): `chat_id is empty` when missing, `chat not found` when malformed. */
export function chatIdArg(params: Params, name = 'chat_id'): ChatRef {
  const text = stringArg(params, name)?.trim();
  if (text === undefined || text === '') throw badRequest(`${name} is empty`);
  if (text.startsWith('@') && text.length > 1) return { username: text.slice(1).toLowerCase() };
  const id = intArg({ [name]: text }, name);
  if (id === undefined || !Number.isSafeInteger(id) || id === 0) throw badRequest('chat not found');
  return { id };
}

/** Reads a user id (required, positive): Telegram's `invalid user_id specified` otherwise. */
export function userIdArg(params: Params, name = 'user_id'): number {
  const id = intArg(params, name);
  if (id === undefined || !Number.isSafeInteger(id) || id <= 0) throw badRequest(`invalid ${name} specified`);
  return id;
}
