import type { Registry } from 'prom-client';
import type { RequestHandler } from 'express';
import { ApiError } from './api-error.js';
import { sendApiError } from './errors.js';
import { createDoorMetrics } from './metrics.js';

/** The wait a shed request is told (`Retry-After`, whole seconds). */
export const SHED_RETRY_AFTER_SECONDS = 1;

/**
 * The REST edge's door: at most `limit` requests (GATEWAY_MAX_IN_FLIGHT) in progress in this
 * process; one more is answered at once `503 overloaded` with `Retry-After`, before the backend is
 * asked, and counted (`gateway_shed_total`). A request admitted is served to its end: overload is
 * refused where it costs nothing, never by failing work that has begun. Mounted after the body
 * parsers, so a client that trickles its body (bounded by the body limit and Node's request
 * timeout) holds no place here. A request leaves when its answer is sent or its connection closes.
 */
export function createDoor(limit: number, registry: Registry): RequestHandler {
  let inFlight = 0;
  const countShed = createDoorMetrics(registry, limit, () => inFlight);
  return (_req, res, next) => {
    if (inFlight >= limit) {
      countShed();
      sendApiError(res, new ApiError('overloaded', undefined, SHED_RETRY_AFTER_SECONDS));
      return;
    }
    inFlight += 1;
    // A response emits 'close' once, when its answer is sent or its connection closed first.
    res.once('close', () => {
      inFlight -= 1;
    });
    next();
  };
}
