import { Counter, Gauge, type Registry } from 'prom-client';
import type { RequestHandler } from 'express';
import { ApiError } from './api-error.js';
import { sendApiError } from './errors.js';

/** The wait a shed request is told (`Retry-After`, whole seconds). */
export const SHED_RETRY_AFTER_SECONDS = 1;

/**
 * The REST edge's door: at most `limit` requests (GATEWAY_MAX_IN_FLIGHT) in progress in this
 * process; one more is answered at once `503 overloaded` with `Retry-After`, before its body is read
 * or the backend is asked, and counted (`gateway_shed_total`). A request admitted is served to its
 * end: overload is refused where it costs nothing, never by failing work that has begun.
 * A request leaves when its answer is sent or its connection closes.
 */
export function createDoor(limit: number, registry: Registry): RequestHandler {
  let inFlight = 0;
  const registers = [registry];
  const shed = new Counter({
    name: 'gateway_shed_total',
    help: 'REST requests answered 503 overloaded at the door because GATEWAY_MAX_IN_FLIGHT were in progress (no work done for them).',
    registers,
  });
  new Gauge({
    name: 'gateway_in_flight_requests',
    help: 'REST requests in progress now (admitted by the door, not yet answered).',
    registers,
    collect() {
      this.set(inFlight);
    },
  });
  new Gauge({
    name: 'gateway_max_in_flight',
    help: 'The door limit (GATEWAY_MAX_IN_FLIGHT).',
    registers,
    collect() {
      this.set(limit);
    },
  });
  return (_req, res, next) => {
    if (inFlight >= limit) {
      shed.inc();
      sendApiError(res, new ApiError('overloaded', undefined, SHED_RETRY_AFTER_SECONDS));
      return;
    }
    inFlight += 1;
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      inFlight -= 1;
    };
    res.once('finish', leave);
    res.once('close', leave);
    next();
  };
}
