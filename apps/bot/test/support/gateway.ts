import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { create, fromBinary, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import { Code, ConnectError, type HandlerContext } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { botlink } from '@wordgame/contracts';
import type { DevCerts } from '@wordgame/testkit';
import { waitFor } from './wait.js';

type Unary<I, O extends DescMessage> = (req: I, ctx: HandlerContext) => Promise<MessageInitShape<O>>;

/** The unary handlers a test plugs in; unset ones answer Unimplemented. */
export interface UnaryHandlers {
  resolveChatEligibility?: Unary<botlink.ChatEligibilityRequest, typeof botlink.ChatEligibilityResponseSchema>;
  validatePreCheckout?: Unary<botlink.PreCheckoutRequest, typeof botlink.PreCheckoutResponseSchema>;
  forwardPayment?: Unary<botlink.ForwardPaymentRequest, typeof botlink.ForwardPaymentResponseSchema>;
  listStarCharges?: Unary<botlink.StarChargesRequest, typeof botlink.StarChargesResponseSchema>;
  openSupportCase?: Unary<botlink.OpenSupportCaseRequest, typeof botlink.OpenSupportCaseResponseSchema>;
  forwardRefund?: Unary<botlink.ForwardRefundRequest, typeof botlink.ForwardRefundResponseSchema>;
}

/** One Link stream as the test gateway sees it. */
export class LinkSession {
  /** Every FromBot message, in arrival order. */
  readonly received: botlink.FromBot[] = [];
  /** Set once the bot's request side ended (or failed). */
  requestEnded = false;
  private readonly queue: botlink.ToBot[] = [];
  private wake: (() => void) | undefined;
  private ended = false;
  private failure: ConnectError | undefined;

  /** Pushes a command down the stream. */
  push(command: MessageInitShape<typeof botlink.CommandSchema>): void {
    this.queue.push(create(botlink.ToBotSchema, { command }));
    this.wake?.();
  }

  /**
   * Pushes a ToBot given as its wire bytes, as a newer gateway would send it: fields this bot's
   * contract does not know (e.g. a later Command payload kind) stay in the message as unknown
   * fields and go out on the wire exactly as given.
   */
  pushRaw(bytes: Uint8Array): void {
    this.queue.push(fromBinary(botlink.ToBotSchema, bytes));
    this.wake?.();
  }

  /** Ends the stream from the server side, cleanly or with an error. */
  end(failure?: ConnectError): void {
    this.ended = true;
    this.failure = failure;
    this.wake?.();
  }

  acks(): botlink.Ack[] {
    return this.received.flatMap((m) => (m.msg.case === 'ack' ? [m.msg.value] : []));
  }

  healths(): botlink.Health[] {
    return this.received.flatMap((m) => (m.msg.case === 'health' ? [m.msg.value] : []));
  }

  /** @internal Feeds the response stream until ended or the call is cancelled. */
  async *outgoing(signal: AbortSignal): AsyncGenerator<botlink.ToBot> {
    const onAbort = (): void => this.wake?.();
    signal.addEventListener('abort', onAbort);
    try {
      for (;;) {
        const next = this.queue.shift();
        if (next) {
          yield next;
          continue;
        }
        if (this.ended) {
          if (this.failure) throw this.failure;
          return;
        }
        if (signal.aborted) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }
}

/**
 * A real BotLink gRPC server over HTTP/2 with mutual TLS (client certificate required and
 * verified against the dev CA), standing in for the gateway in the bot's tests. It records each
 * Link stream, lets the test push commands, end streams or drop the whole connection, and serves
 * the unary RPCs with handlers the test sets.
 */
export class TestGateway {
  readonly sessions: LinkSession[] = [];
  handlers: UnaryHandlers = {};
  private readonly h2Sessions = new Set<http2.ServerHttp2Session>();

  private constructor(private readonly server: http2.Http2SecureServer) {
    server.on('session', (s: http2.ServerHttp2Session) => {
      this.h2Sessions.add(s);
      s.on('close', () => this.h2Sessions.delete(s));
    });
  }

  /** Listens on 127.0.0.1 (port 0 = a free one). */
  static async start(certs: DevCerts, port = 0): Promise<TestGateway> {
    const ref: { gateway?: TestGateway } = {};
    const handler = connectNodeAdapter({
      routes: (router) => {
        router.service(botlink.BotLink, {
          link: (requests, ctx) => ref.gateway!.link(requests, ctx),
          resolveChatEligibility: (req, ctx) => implemented(ref.gateway!.handlers.resolveChatEligibility)(req, ctx),
          validatePreCheckout: (req, ctx) => implemented(ref.gateway!.handlers.validatePreCheckout)(req, ctx),
          forwardPayment: (req, ctx) => implemented(ref.gateway!.handlers.forwardPayment)(req, ctx),
          listStarCharges: (req, ctx) => implemented(ref.gateway!.handlers.listStarCharges)(req, ctx),
          openSupportCase: (req, ctx) => implemented(ref.gateway!.handlers.openSupportCase)(req, ctx),
          forwardRefund: (req, ctx) => implemented(ref.gateway!.handlers.forwardRefund)(req, ctx),
        });
      },
    });
    const server = http2.createSecureServer(
      {
        ca: readFileSync(certs.ca.cert),
        cert: readFileSync(certs.gateway.cert),
        key: readFileSync(certs.gateway.key),
        requestCert: true,
        rejectUnauthorized: true,
      },
      handler,
    );
    const gateway = new TestGateway(server);
    ref.gateway = gateway;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    return gateway;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** Waits until the `n`-th (1-based) Link stream has opened and returns it. */
  async session(n: number, timeoutMs = 10_000): Promise<LinkSession> {
    await waitFor(() => this.sessions.length >= n, `link stream #${n}`, timeoutMs);
    return this.sessions[n - 1]!;
  }

  /** Destroys every HTTP/2 connection at once, as a crashed or unreachable gateway would. */
  dropConnections(): void {
    for (const s of this.h2Sessions) s.destroy();
  }

  async close(): Promise<void> {
    for (const session of this.sessions) session.end();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.dropConnections();
    await closed;
  }

  private link(requests: AsyncIterable<botlink.FromBot>, ctx: HandlerContext): AsyncIterable<botlink.ToBot> {
    const session = new LinkSession();
    this.sessions.push(session);
    void (async () => {
      try {
        for await (const message of requests) session.received.push(message);
      } catch {
        // The bot went away; requestEnded records it.
      } finally {
        session.requestEnded = true;
      }
    })();
    return session.outgoing(ctx.signal);
  }
}

function implemented<F>(handler: F | undefined): F {
  if (!handler) throw new ConnectError('not implemented in this test', Code.Unimplemented);
  return handler;
}
