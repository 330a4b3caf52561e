import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Per-operation REST metrics; labels are the operation name and status only (no ids). */
export interface ApiMetrics {
  observe(operation: string, status: number, seconds: number): void;
}

/** Registers `gateway_api_requests_total{operation,status}` and `gateway_api_request_duration_seconds{operation}`. */
export function createApiMetrics(registry: Registry): ApiMetrics {
  const requests = new Counter({
    name: 'gateway_api_requests_total',
    help: 'REST requests by gateway operation and HTTP status',
    labelNames: ['operation', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'gateway_api_request_duration_seconds',
    help: 'REST request duration by gateway operation',
    labelNames: ['operation'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return {
    observe(operation, status, seconds) {
      requests.inc({ operation, status: String(status) });
      duration.observe({ operation }, seconds);
    },
  };
}

/**
 * The door's metrics (http/door.ts): `gateway_shed_total`, and `gateway_in_flight_requests` and
 * `gateway_max_in_flight` read on scrape. Answers the function that counts one request shed.
 */
export function createDoorMetrics(registry: Registry, limit: number, inFlight: () => number): () => void {
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
      this.set(inFlight());
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
  return () => shed.inc();
}
