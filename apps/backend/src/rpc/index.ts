/**
 * The RPC module's one public entry: the caller read from a request, the closed set of domain errors,
 * FlatBuffers helpers and the error edge interceptor. Other features import from here only.
 */
export { type Caller, callerFrom, writerFrom } from './caller.js';
export { DomainError, type DomainErrorCode, ERROR_CODE_HEADER, HINT_UNLOCK_HEADER, rateLimited } from './errors.js';
export { stringVector, unixSeconds } from './fbs.js';
