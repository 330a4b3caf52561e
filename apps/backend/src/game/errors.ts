import { Code, ConnectError } from '@connectrpc/connect';
import { FlatBufferDecodeError } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import { DomainError, ERROR_CODE_HEADER, ERROR_CODES } from '../rpc/errors.js';

/**
 * The game and social layer's closed set of error codes with their Connect codes. They travel
 * exactly like the backend's other domain errors (machine code in `x-error-code`); they are
 * thrown as ConnectErrors, which the backend's error edge passes through unchanged.
 */
export const GAME_ERROR_CODES = {
  invalid_variant: Code.InvalidArgument,
  invalid_game_id: Code.InvalidArgument,
  invalid_opponent: Code.InvalidArgument,
  invalid_word: Code.InvalidArgument,
  invalid_target: Code.InvalidArgument,
  unknown_game: Code.NotFound,
  unknown_account: Code.NotFound,
  unknown_friend_request: Code.NotFound,
  account_deleted: Code.FailedPrecondition,
  blocked: Code.PermissionDenied,
  game_finished: Code.FailedPrecondition,
  not_your_turn: Code.FailedPrecondition,
  unknown_word: Code.FailedPrecondition,
  wrong_letter: Code.FailedPrecondition,
  word_repeated: Code.FailedPrecondition,
  no_word_available: Code.FailedPrecondition,
  no_hints_left: Code.FailedPrecondition,
  hint_locked: Code.FailedPrecondition,
} as const satisfies Record<string, Code>;

export type GameErrorCode = keyof typeof GAME_ERROR_CODES;

/** Metadata header that carries the seconds left of a `hint_locked` refusal. */
export const HINT_UNLOCK_HEADER = 'x-hint-unlock-left-seconds';

/** A game or social failure: its Connect code, the machine code in `x-error-code`, extra metadata. */
export function gameError(code: GameErrorCode, message: string, extra: Record<string, string> = {}): ConnectError {
  return new ConnectError(message, GAME_ERROR_CODES[code], { ...extra, [ERROR_CODE_HEADER]: code });
}

/**
 * The error edge's mapping for a failure inside a server stream, whose body runs after the
 * interceptor has returned: a DomainError becomes its Connect code with `x-error-code`, a
 * malformed body is `malformed_body`, a ConnectError passes, anything else is logged and Internal.
 */
export function streamError(err: unknown, logger: Logger): ConnectError {
  if (err instanceof ConnectError) return err;
  if (err instanceof DomainError) return new ConnectError(err.message, ERROR_CODES[err.code], { [ERROR_CODE_HEADER]: err.code });
  if (err instanceof FlatBufferDecodeError) return new ConnectError(err.message, Code.InvalidArgument, { [ERROR_CODE_HEADER]: 'malformed_body' });
  logger.error({ err }, 'game stream failed');
  return new ConnectError('internal error', Code.Internal, { [ERROR_CODE_HEADER]: 'internal' });
}
