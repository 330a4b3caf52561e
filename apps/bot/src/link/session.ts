import http2 from 'node:http2';
import { Code, ConnectError } from '@connectrpc/connect';
import type { GrpcTransportOptions } from '@connectrpc/connect-node';
import { keepAlive } from '@wordgame/h2-keepalive';

/** connect-node's session-manager contract (its interface is not exported by name). */
type SessionManager = NonNullable<GrpcTransportOptions['sessionManager']>;

export interface LinkSessionOptions {
  url: string;
  /** TLS material for mutual authentication (PEM). */
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
  /** PING interval; a PING unanswered for as long destroys the connection (half-open detection). */
  pingIntervalMs: number;
}

/**
 * The bot's one HTTP/2 connection to the gateway, handed to connect-node's gRPC transport as its
 * session manager. It opens the connection on first use and again after a drop, and keeps it
 * honest with guarded PINGs. connect-node's own Http2SessionManager is not used because its
 * keepalive can ping a just-destroyed session and crash the process (connectrpc/connect-es#1795).
 */
export class LinkSession implements SessionManager {
  readonly authority: string;
  private session: http2.ClientHttp2Session | undefined;
  private opening: Promise<http2.ClientHttp2Session> | undefined;
  private closed = false;

  constructor(private readonly options: LinkSessionOptions) {
    this.authority = new URL(options.url).origin;
  }

  async request(
    method: string,
    path: string,
    headers: http2.OutgoingHttpHeaders,
    options: Omit<http2.ClientSessionRequestOptions, 'signal'>,
  ): Promise<http2.ClientHttp2Stream> {
    for (let attempt = 0; ; attempt++) {
      const session = await this.open();
      try {
        return session.request({ ...headers, ':method': method, ':path': path }, options);
      } catch (err: unknown) {
        // A session can close between open() and request(); one fresh connection is worth a try.
        if ((session.closed || session.destroyed) && attempt === 0) continue;
        throw ConnectError.from(err, Code.Unavailable);
      }
    }
  }

  /**
   * Resolves true once the gateway has answered a PING on the current connection: its HTTP/2
   * layer exists only after it accepted the bot's client certificate, and a stream it refuses by
   * identity is answered before it reads a later PING. False when there is no live connection.
   */
  answered(): Promise<boolean> {
    const session = this.session;
    if (!session || session.closed || session.destroyed) return Promise.resolve(false);
    return new Promise((resolve) => {
      try {
        session.ping((err) => setImmediate(() => resolve(err === null && !session.destroyed)));
      } catch {
        resolve(false);
      }
    });
  }

  notifyResponseByteRead(): void {
    // Liveness comes from PINGs; reads need no bookkeeping here.
  }

  /** Closes the connection and refuses new requests. */
  close(): void {
    this.closed = true;
    this.session?.destroy();
    this.session = undefined;
  }

  private open(): Promise<http2.ClientHttp2Session> {
    if (this.closed) return Promise.reject(new ConnectError('bot-link connection closed', Code.Unavailable));
    const current = this.session;
    if (current && !current.closed && !current.destroyed) return Promise.resolve(current);
    this.opening ??= this.connect().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private connect(): Promise<http2.ClientHttp2Session> {
    const { ca, cert, key, pingIntervalMs } = this.options;
    return new Promise((resolve, reject) => {
      const session = http2.connect(this.authority, { ca, cert, key });
      const onError = (err: Error) => {
        session.destroy();
        reject(ConnectError.from(err, Code.Unavailable));
      };
      session.once('error', onError);
      session.once('connect', () => {
        session.off('error', onError);
        // Later session errors surface on its streams; the listener keeps them from being unhandled.
        session.on('error', () => undefined);
        session.once('close', () => {
          if (this.session === session) this.session = undefined;
        });
        // Destroyed with an error, so the streams on it fail: a plain destroy() closes them with
        // NO_ERROR, which connect-node does not surface, and the Link would wait forever.
        keepAlive(session, {
          intervalMs: pingIntervalMs,
          timeoutMs: pingIntervalMs,
          onTimeout: () =>
            session.destroy(new ConnectError('bot-link PING unanswered: the connection is gone or half-open', Code.Unavailable)),
        });
        if (this.closed) {
          session.destroy();
          reject(new ConnectError('bot-link connection closed', Code.Unavailable));
          return;
        }
        this.session = session;
        resolve(session);
      });
    });
  }
}
