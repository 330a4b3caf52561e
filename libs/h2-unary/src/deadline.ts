import type { Interceptor, Transport } from '@connectrpc/connect';

/**
 * The longest delay Node's timers can wait: 2^31-1 ms (about 24.8 days). A longer one is not an
 * error: Node warns and fires it after 1 ms, so an unclamped 30-day deadline expires at once.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A call deadline in ms as a timer can wait it: longer than MAX_TIMER_MS is MAX_TIMER_MS (the
 * call then ends at most 24.8 days in, which no caller can tell from never), anything else as
 * given (undefined = no deadline, zero or less = already expired).
 */
export function clampTimeoutMs<T extends number | undefined>(ms: T): T {
  return (ms !== undefined && ms > MAX_TIMER_MS ? MAX_TIMER_MS : ms) as T;
}

const GRPC_TIMEOUT = /^(\d{1,8})([HMSmun])$/;
const UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1_000, m: 1, u: 0.001, n: 0.000001 };

/**
 * `grpc-timeout` in milliseconds, unclamped: TimeoutValue is 1-8 ASCII digits and TimeoutUnit one
 * of H M S m u n (gRPC over HTTP/2, "Timeout"); undefined when absent, null when malformed (nine
 * digits, no unit, repeated).
 */
export function parseGrpcTimeout(value: string | string[] | undefined): number | undefined | null {
  if (value === undefined) return undefined;
  const match = typeof value === 'string' ? GRPC_TIMEOUT.exec(value) : null;
  if (!match) return null;
  return (UNIT_MS[match[2] ?? ''] ?? 1) * parseInt(match[1] ?? '0', 10);
}

const ENCODE_UNITS: ReadonlyArray<[string, number]> = [
  ['m', 1],
  ['S', 1_000],
  ['M', 60_000],
  ['H', 3_600_000],
];

/**
 * `ms` as a spec `grpc-timeout` (at most 8 digits): in milliseconds when it fits, else in the
 * first coarser unit that does, rounded up (a deadline is never shortened by the encoding), except
 * that a deadline a timer can wait (at most MAX_TIMER_MS) is never rounded up past MAX_TIMER_MS but
 * down (2^31-1 ms is `2147483S`, 647 ms short): @grpc/grpc-js servers read the timeout as a signed
 * 32-bit integer, so `2147484S` wraps negative there and the call fails DEADLINE_EXCEEDED at once.
 * connect-es writes `${ms}m` whatever the size, which is 9 or more digits from 27.8 hours on.
 */
export function encodeGrpcTimeout(ms: number): string {
  const whole = Math.max(0, Math.ceil(ms));
  for (const [unit, size] of ENCODE_UNITS) {
    const up = Math.ceil(whole / size);
    const value = whole <= MAX_TIMER_MS && up * size > MAX_TIMER_MS ? Math.floor(whole / size) : up;
    if (value <= 99_999_999) return `${value}${unit}`;
  }
  return '99999999H';
}

/**
 * An interceptor for gRPC clients built on connect-es: rewrites the `grpc-timeout` connect writes
 * (`${ms}m`, any number of digits) into the spec's form (encodeGrpcTimeout), so a long deadline
 * is not refused as malformed by a gRPC server.
 */
export function specGrpcTimeout(): Interceptor {
  return (next) => (req) => {
    const value = req.header.get('grpc-timeout');
    const ms = value === null ? null : /^(\d+)m$/.exec(value)?.[1];
    if (ms !== null && ms !== undefined) req.header.set('grpc-timeout', encodeGrpcTimeout(Number(ms)));
    return next(req);
  };
}

/**
 * `transport` with every call's deadline clamped (clampTimeoutMs) before the transport starts its
 * timer: connect-es times a call with setTimeout, so a deadline past MAX_TIMER_MS would fail the
 * call after 1 ms.
 */
export function clampTransportDeadlines(transport: Transport): Transport {
  return {
    unary: (method, signal, timeoutMs, header, input, contextValues) =>
      transport.unary(method, signal, clampTimeoutMs(timeoutMs), header, input, contextValues),
    stream: (method, signal, timeoutMs, header, input, contextValues) =>
      transport.stream(method, signal, clampTimeoutMs(timeoutMs), header, input, contextValues),
  };
}
