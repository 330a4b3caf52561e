import { ERRORS, type RestErrorCode } from '@wordgame/contracts';

/**
 * The error registry as the API document reads it: the codes the REST edge may answer (client and
 * edge codes; service codes are answered by their Connect code, never by name), their statuses and
 * default messages.
 */
export type DocErrorCode = RestErrorCode;

/** Every code the REST edge may answer. */
export const ALL_ERROR_CODES = (Object.keys(ERRORS) as (keyof typeof ERRORS)[]).filter(
  (c): c is RestErrorCode => ERRORS[c].audience !== 'service',
);

/** The HTTP status of a code. */
export const errorStatus = (code: DocErrorCode): number => ERRORS[code].http;

/** The default message of a code. */
export const errorMessage = (code: DocErrorCode): string => ERRORS[code].message;
