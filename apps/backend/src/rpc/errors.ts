/**
 * The backend's error vocabulary, re-exported from the one registry in @wordgame/contracts so the
 * features keep one local import: throw a DomainError (or `rateLimited`) and the error edge
 * (rpc/interceptors.ts) encodes it; never build a coded ConnectError in a feature.
 */
export { DomainError, ERROR_CODE_HEADER, HINT_UNLOCK_HEADER, rateLimited, type DomainErrorCode } from '@wordgame/contracts';
