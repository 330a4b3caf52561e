import type http2 from 'node:http2';
import type { ContextValues, Interceptor } from '@connectrpc/connect';
import type { Compression } from '@connectrpc/connect/protocol';
import { compressionBrotli, compressionGzip } from '@connectrpc/connect-node';
import type { ServiceRegistration } from './routes.js';

/**
 * What one server serves, given once to both the connect-node adapter and the fast path (see
 * `unaryServers`), so the two cannot drift: the services, the interceptor chain, the read limit
 * and the context values of each call.
 */
export interface UnaryServerOptions {
  services: readonly ServiceRegistration[];
  /** Run on every call on both paths, in this order (connect-node's `interceptors`). */
  interceptors?: Interceptor[];
  /** Largest request message read (connect-node's `readMaxBytes`). */
  readMaxBytes: number;
  /**
   * The context values of a call, from the connection's socket (the TLS peer, …) and, on HTTP/2,
   * the session the call arrived on (which connection, and a way to PING its peer).
   */
  contextValues?: (socket: unknown, session?: http2.Http2Session) => ContextValues;
  /**
   * False turns the fast path off: every call goes to connect-node (the bench's comparison, and
   * the way out should a fast path misbehave). Default true.
   */
  fast?: boolean;
}

/** The compressions connect-node's adapter accepts by default; the fast path negotiates the same. */
export const ADAPTER_COMPRESSIONS: Compression[] = [compressionGzip, compressionBrotli];
/** connect-node's default compressMinBytes: smaller answers are never compressed. */
export const COMPRESS_MIN_BYTES = 1024;
