const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const NETWORK_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
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
 * a socket error, or the pg driver's own connection messages. Such a call may succeed when
 * retried, so the edge answers Unavailable instead of Internal.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code) || NETWORK_ERRNOS.has(code))) return true;
    if (typeof message === 'string' && DRIVER_MESSAGES.some((pattern) => pattern.test(message))) return true;
    e = cause;
  }
  return false;
}
