import { parsePlatformHeader, type SessionPlatform, gate } from '../gate/index.js';
import { DomainError } from './errors.js';

/** The authenticated caller as the gateway states it in request headers. */
export interface Caller {
  accountId: bigint;
  platform: SessionPlatform;
}

const INT8_MAX = 2n ** 63n - 1n;

/**
 * Reads the caller from `X-Account-Id` (decimal) and `X-Platform` (see proto/backend/v1/
 * account.proto). These headers are the only source of caller context; a missing or malformed
 * one is Unauthenticated `caller_required`.
 */
export function callerFrom(headers: Headers): Caller {
  const id = headers.get('x-account-id');
  const platformValue = headers.get('x-platform');
  if (id === null || !/^[1-9][0-9]{0,18}$/.test(id) || BigInt(id) > INT8_MAX) {
    throw new DomainError('caller_required', 'X-Account-Id missing or malformed');
  }
  const platform = platformValue === null ? null : parsePlatformHeader(platformValue);
  if (platform === null) throw new DomainError('caller_required', 'X-Platform missing or malformed');
  return { accountId: BigInt(id), platform };
}

/**
 * The caller of a method that writes to the caller's account (profile, e-mail, social, account
 * delete): as callerFrom, and PermissionDenied `untrusted_session` when the gate says the session
 * is not trusted (no recorded platform: view-only). The gateway refuses these writes first; this
 * is the backend's own check, so a wiring slip at the edge still writes nothing.
 */
export function writerFrom(headers: Headers): Caller {
  const caller = callerFrom(headers);
  if (!gate({ ...caller.platform, emailConfirmed: false }).trusted) {
    throw new DomainError('untrusted_session', 'this session has no recorded platform: it is view-only; sign in again from the app');
  }
  return caller;
}
