import { ERROR_CODES, statusOf, type ErrorCode } from '../../http/error-codes.js';

/**
 * The edge's error table as the API document reads it: the one place the document and its tests
 * learn codes, statuses and default messages, so a move of the table touches only this file.
 */
export type DocErrorCode = ErrorCode;

/** Every code the REST edge may answer. */
export const ALL_ERROR_CODES = Object.keys(ERROR_CODES) as DocErrorCode[];

/** The HTTP status of a code. */
export const errorStatus = (code: DocErrorCode): number => statusOf(code);

/** The default message of a code. */
export const errorMessage = (code: DocErrorCode): string => ERROR_CODES[code][1];
