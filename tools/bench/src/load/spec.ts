/** One connection's request: fixed method, path and headers; `uniqueHeader` gets a fresh value per request. */
export interface RequestTemplate {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** A header set to `<prefix>-<connection>-<n>` on every request (e.g. `idempotency-key`). */
  uniqueHeader?: string;
}

/**
 * What the load process runs. `closed`: every connection sends its next request as soon as the
 * previous answer is in (saturation throughput). `paced`: the connections together offer
 * `rate` requests/s on a fixed schedule, and latency counts from the scheduled send time, so a
 * server falling behind shows in the figures (no coordinated omission).
 */
export interface LoadSpec {
  host: string;
  port: number;
  /** Several servers (e.g. gateway replicas): connection i goes to ports[i % ports.length]; absent = `port` only. */
  ports?: number[];
  seconds: number;
  mode: 'closed' | 'paced';
  rate?: number;
  /** One template per connection. */
  templates: RequestTemplate[];
  expectStatus: number;
  uniquePrefix: string;
}

/** What the load process reports. */
export interface LoadFigures {
  requests: number;
  errors: number;
  /** Status codes other than the expected one, with a sample body. */
  firstError?: string;
  /** Answers other than the expected status, by kind: `<status> <error code>` (the JSON body's `error.code`, else `-`). */
  failures: Record<string, number>;
  /** p99 (ms) of the answers with the expected status only. */
  p99Ok: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** CPU time the load process itself used, in ms (user + system). */
  cpuMs: number;
}
