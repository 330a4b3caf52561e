import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { CertPair } from '@wordgame/testkit';
import { waitFor } from './wait.js';

/** The repository's proto/ folder: botlink/v1/botlink.proto is the spec's BotLink contract. */
const PROTO_ROOT = fileURLToPath(new URL('../../../../proto', import.meta.url));

/**
 * botlink.v1 loaded by @grpc/proto-loader straight from the spec's proto with the gateway suite's
 * options: field names as in the .proto (snake_case), 64-bit integers as decimal strings, oneofs
 * named, defaults filled in, so a message reads as the spec's tables do.
 */
const definition = protoLoader.loadSync('botlink/v1/botlink.proto', {
  includeDirs: [PROTO_ROOT],
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
});
const service = (grpc.loadPackageDefinition(definition) as unknown as { botlink: { v1: { BotLink: grpc.ServiceClientConstructor } } })
  .botlink.v1.BotLink.service;

/** A message as proto-loader gives it: plain fields, 64-bit integers as strings, a oneof by name. */
export type Wire = Record<string, unknown>;

/** A unary handler's answer: a response message, or the status grpc-js ends the call with. */
export type UnaryAnswer = { message: Wire } | { status: grpc.status; details: string };

/** One unary call as the server saw it. */
export interface UnaryCall {
  request: Wire;
  /** When the handler ran, and the deadline grpc-js derived from the call's grpc-timeout. */
  at: number;
  deadline: grpc.Deadline;
}

/** One Link stream as the grpc-js server sees it. */
export class GrpcJsLink {
  /** Every FromBot message, in arrival order. */
  readonly received: Wire[] = [];
  /** The call's deadline as grpc-js parsed it (Infinity without grpc-timeout). */
  readonly deadline: grpc.Deadline;
  /** Set once the bot's request side ended or the call was cancelled. */
  ended = false;

  constructor(private readonly call: grpc.ServerDuplexStream<Wire, Wire>) {
    this.deadline = call.getDeadline();
    call.on('data', (m: Wire) => this.received.push(m));
    call.on('end', () => (this.ended = true));
    call.on('cancelled', () => (this.ended = true));
    call.on('error', () => (this.ended = true));
  }

  /** Pushes one Command (proto-loader shape) down the stream. */
  push(command: Wire): void {
    this.call.write({ command });
  }

  /** Ends the stream with a status; before any write grpc-js sends it trailers-only. */
  fail(code: grpc.status, details: string): void {
    this.call.emit('error', { code, details, metadata: new grpc.Metadata() });
  }

  acks(): Wire[] {
    return this.received.flatMap((m) => (m['msg'] === 'ack' ? [m['ack'] as Wire] : []));
  }

  healths(): Wire[] {
    return this.received.flatMap((m) => (m['msg'] === 'health' ? [m['health'] as Wire] : []));
  }
}

type UnaryName = 'ResolveChatEligibility' | 'ValidatePreCheckout' | 'ForwardPayment';

/**
 * botlink.v1.BotLink served by @grpc/grpc-js over mutual TLS (client certificate required and
 * checked against `ca`), standing in for the gateway: records each Link stream and every unary
 * call, and answers the unary RPCs with the handlers a test sets (unset: UNIMPLEMENTED).
 */
export class GrpcJsGateway {
  readonly links: GrpcJsLink[] = [];
  readonly calls: Record<UnaryName, UnaryCall[]> = { ResolveChatEligibility: [], ValidatePreCheckout: [], ForwardPayment: [] };
  handlers: Partial<Record<UnaryName, (request: Wire, n: number) => UnaryAnswer>> = {};
  private server: grpc.Server | undefined;
  private boundPort = 0;

  constructor(private readonly tls: { ca: string; server: CertPair }) {}

  get port(): number {
    return this.boundPort;
  }

  /** The BOTLINK_URL of this server (the dev gateway certificate names 127.0.0.1). */
  get url(): string {
    return `https://127.0.0.1:${this.boundPort}`;
  }

  /** Binds 127.0.0.1 on `port` (0 = a free one) and serves. */
  async start(port = 0, options: grpc.ServerOptions = {}): Promise<void> {
    const server = new grpc.Server(options);
    server.addService(service, {
      Link: (call: grpc.ServerDuplexStream<Wire, Wire>) => this.links.push(new GrpcJsLink(call)),
      ResolveChatEligibility: this.unary('ResolveChatEligibility'),
      ValidatePreCheckout: this.unary('ValidatePreCheckout'),
      ForwardPayment: this.unary('ForwardPayment'),
    });
    const credentials = grpc.ServerCredentials.createSsl(
      readFileSync(this.tls.ca),
      [{ cert_chain: readFileSync(this.tls.server.cert), private_key: readFileSync(this.tls.server.key) }],
      true,
    );
    this.boundPort = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`127.0.0.1:${port}`, credentials, (err, bound) => (err ? reject(err) : resolve(bound))),
    );
    this.server = server;
  }

  /** Waits until the `n`-th (1-based) Link stream has arrived and returns it. */
  async link(n: number, timeoutMs = 10_000): Promise<GrpcJsLink> {
    await waitFor(() => this.links.length >= n, `link stream #${n}`, timeoutMs);
    return this.links[n - 1]!;
  }

  /** Graceful shutdown: GOAWAY to every connection; open calls may finish (resolves when they have). */
  drain(): Promise<void> {
    const server = this.server;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => server.tryShutdown(() => resolve()));
  }

  /** Cancels every call, closes every connection and the listener. */
  stop(): void {
    this.server?.forceShutdown();
    this.server = undefined;
  }

  private unary(name: UnaryName): grpc.handleUnaryCall<Wire, Wire> {
    return (call, callback) => {
      const calls = this.calls[name];
      calls.push({ request: call.request, at: Date.now(), deadline: call.getDeadline() });
      const answer = this.handlers[name]?.(call.request, calls.length) ?? {
        status: grpc.status.UNIMPLEMENTED,
        details: `${name} not set in this test`,
      };
      if ('message' in answer) callback(null, answer.message);
      else callback({ code: answer.status, details: answer.details, metadata: new grpc.Metadata() });
    };
  }
}
