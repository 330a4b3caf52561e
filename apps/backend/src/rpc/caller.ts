import { parsePlatformHeader, type SessionPlatform } from '../gate/context.js';
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
