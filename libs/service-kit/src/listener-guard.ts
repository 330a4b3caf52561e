import type http from 'node:http';
import type http2 from 'node:http2';
import type net from 'node:net';
import type { Logger } from '@wordgame/logging';

/** Why a listener closed a connection before it spoke: over its cap (at once) or silent past the handshake timeout. */
export type ConnectionRefusal = 'cap' | 'timeout';

/** Every refusal reason (the label values of the refused-connections counters). */
export const CONNECTION_REFUSALS: readonly ConnectionRefusal[] = ['cap', 'timeout'];

/** Least time between two refusal log lines of one listener (ms); what comes between is counted into the next. */
export const REFUSAL_LOG_WINDOW_MS = 10_000;

/** What every listener of every service enforces on a new connection. */
export interface ListenerLimits {
  /**
   * How long (ms) a new connection has to finish its TLS handshake and then say who it is: the
   * whole head of its first HTTP/1.1 request, or the client SETTINGS of the HTTP/2 preface. A
   * connection that has not is destroyed.
   */
  handshakeTimeoutMs: number;
  /** Most connections open at once; one more is closed as soon as it is accepted. */
  maxConnections: number;
}

/** A listener's limits, its name in logs and metrics, and where refusals are counted. */
export interface ListenerGuardOptions extends ListenerLimits {
  /** The listener's name (`http`, `botlink`, …): the `listener` label and log field. */
  listener: string;
  logger: Logger;
  /** Called once per refused or timed-out connection (a Prometheus counter). */
  onRefused?: (reason: ConnectionRefusal) => void;
  /** REFUSAL_LOG_WINDOW_MS unless a test says otherwise. */
  logWindowMs?: number;
}

/** The protocol servers behind a guarded listener, whose first request or SETTINGS settles a connection. */
export interface GuardedProtocols {
  http1?: readonly http.Server[];
  http2?: readonly (http2.Http2Server | http2.Http2SecureServer)[];
}

/** A guarded listener's counts; `close()` stops its timers and writes the refusals not yet logged. */
export interface ListenerGuard {
  readonly refused: Readonly<Record<ConnectionRefusal, number>>;
  /** Connections accepted that have not yet said who they are. */
  readonly unsettled: number;
  close(): void;
}

/**
 * Counts events by key and logs them as one warn line at most once per window: the first event at
 * once, then whatever came during each window when it ends, so a flood of refusals costs one line
 * per window however many there are. `close()` writes what is still counted.
 */
export class RateLimitedLog {
  private counts: Record<string, number> = {};
  private sample: Record<string, unknown> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly message: string,
    private readonly fields: Record<string, unknown>,
    private readonly windowMs = REFUSAL_LOG_WINDOW_MS,
  ) {}

  /** Counts one event under `key`; `sample` (the latest wins) is logged with the counts. */
  note(key: string, sample?: Record<string, unknown>): void {
    this.counts[key] = (this.counts[key] ?? 0) + 1;
    if (sample !== undefined) this.sample = sample;
    if (this.timer !== undefined) return;
    this.flush();
    this.arm();
  }

  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.flush();
  }

  private arm(): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (Object.keys(this.counts).length === 0) return;
      this.flush();
      this.arm();
    }, this.windowMs);
    this.timer.unref();
  }

  private flush(): void {
    if (Object.keys(this.counts).length === 0) return;
    this.logger.warn({ ...this.fields, counts: this.counts, windowMs: this.windowMs, ...(this.sample ?? {}) }, this.message);
    this.counts = {};
    this.sample = undefined;
  }
}

const keyOf = (socket: net.Socket | undefined): string | undefined =>
  socket?.remoteAddress === undefined || socket.remotePort === undefined ? undefined : `${socket.remoteAddress}|${socket.remotePort}`;

/**
 * Puts `limits` on `server` (a net, http, http2 or TLS server; for one that hands its sockets on,
 * the front server): `server.maxConnections` closes a connection over the cap as soon as it is
 * accepted, and each accepted one is destroyed unless it says who it is within the handshake
 * timeout, which counts from the TCP accept and so covers the TLS handshake too (a client that
 * sends nothing, part of a ClientHello, part of a request head or of the HTTP/2 preface). Said who
 * it is means: an `http1` server saw its first request (the head is complete) or an `http2` server
 * got its client SETTINGS. Connections are matched to their sockets by remote address and port,
 * which is what a TLS socket and the h2 session's socket proxy share with the accepted socket.
 * Each refusal is counted (`onRefused`, `refused`) and logged at most once per window per listener.
 */
export function guardListener(server: net.Server, options: ListenerGuardOptions, protocols: GuardedProtocols): ListenerGuard {
  const log = new RateLimitedLog(
    options.logger,
    'connections refused: over the connection cap or silent past the handshake timeout',
    { listener: options.listener, maxConnections: options.maxConnections, handshakeTimeoutMs: options.handshakeTimeoutMs },
    options.logWindowMs,
  );
  const refused: Record<ConnectionRefusal, number> = { cap: 0, timeout: 0 };
  const pending = new Map<string, { socket: net.Socket; timer: NodeJS.Timeout }>();
  const refuse = (reason: ConnectionRefusal) => {
    refused[reason] += 1;
    options.onRefused?.(reason);
    log.note(reason);
  };
  const settle = (socket: net.Socket | undefined) => {
    const key = keyOf(socket);
    const entry = key === undefined ? undefined : pending.get(key);
    if (key === undefined || entry === undefined) return;
    clearTimeout(entry.timer);
    pending.delete(key);
  };

  server.maxConnections = options.maxConnections;
  server.on('drop', () => refuse('cap'));
  server.on('connection', (socket: net.Socket) => {
    const key = keyOf(socket);
    if (key === undefined) return;
    const timer = setTimeout(() => {
      pending.delete(key);
      refuse('timeout');
      socket.destroy();
    }, options.handshakeTimeoutMs);
    timer.unref();
    pending.set(key, { socket, timer });
    socket.once('close', () => {
      const entry = pending.get(key);
      if (entry?.socket !== socket) return;
      clearTimeout(entry.timer);
      pending.delete(key);
    });
  });
  for (const h1 of protocols.http1 ?? []) h1.on('request', (req: http.IncomingMessage) => settle(req.socket));
  for (const h2 of protocols.http2 ?? [])
    h2.on('session', (session: http2.ServerHttp2Session) => session.once('remoteSettings', () => settle(session.socket)));

  return {
    refused,
    get unsettled() {
      return pending.size;
    },
    close: () => {
      for (const entry of pending.values()) clearTimeout(entry.timer);
      pending.clear();
      log.close();
    },
  };
}
