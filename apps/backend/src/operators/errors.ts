import { Code, ConnectError } from '@connectrpc/connect';
import { ERROR_CODE_HEADER } from '../rpc/errors.js';

/**
 * The console's error codes (operators, console ledger, moderation), each with its Connect code,
 * on the backend's one convention: a ConnectError with the machine code in `x-error-code`.
 */
export const CONSOLE_ERROR_CODES = {
  invalid_credentials: Code.Unauthenticated,
  operator_session_invalid: Code.Unauthenticated,
  operator_forbidden: Code.PermissionDenied,
  invalid_filter: Code.InvalidArgument,
  invalid_cursor: Code.InvalidArgument,
  invalid_query: Code.InvalidArgument,
  invalid_action: Code.InvalidArgument,
  invalid_until: Code.InvalidArgument,
  unknown_account: Code.NotFound,
} as const satisfies Record<string, Code>;

export type ConsoleErrorCode = keyof typeof CONSOLE_ERROR_CODES;

/** An expected console failure with a short message safe to show an operator. */
export function consoleError(code: ConsoleErrorCode, message: string): ConnectError {
  return new ConnectError(message, CONSOLE_ERROR_CODES[code], { [ERROR_CODE_HEADER]: code });
}
