import { causeChain, isNetworkFailure } from '@wordgame/net-errors';

const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const DRIVER_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error/,
  /^Cannot use a pool after calling end/,
];

/**
 * Whether `err` means the database could not be reached or went away mid-call (a restart, a
 * failover, a full connection table), as opposed to a fault in the statement: SQLSTATE class 08
 * (connection exception), 57P01-57P03 (shut down / starting up), 53300 (too many connections),
 * a network failure (the shared classifier's codes), or the pg driver's own connection messages,
 * anywhere in the cause chain the shared classifier follows. Such a call may succeed when
 * retried, so the edge answers Unavailable instead of Internal.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (isNetworkFailure(err)) return true;
  return causeChain(err).some((e) => {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code))) return true;
    return typeof message === 'string' && DRIVER_MESSAGES.some((pattern) => pattern.test(message));
  });
}
