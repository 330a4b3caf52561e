import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { CertPair } from '@wordgame/testkit';

/** The repository's proto/ folder: botlink/v1/botlink.proto is the spec's BotLink contract. */
export const PROTO_ROOT = fileURLToPath(new URL('../../../../proto', import.meta.url));

/**
 * botlink.v1 loaded by @grpc/proto-loader straight from proto/botlink/v1/botlink.proto (no code
 * generated here): field names as in the .proto (snake_case), 64-bit integers as decimal strings,
 * oneofs named, defaults filled in, so a message reads as the spec's tables do.
 */
const definition = protoLoader.loadSync('botlink/v1/botlink.proto', {
  includeDirs: [PROTO_ROOT],
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
});
const loaded = grpc.loadPackageDefinition(definition) as unknown as {
  botlink: { v1: { BotLink: grpc.ServiceClientConstructor } };
};

/** The BotLink client constructor (@grpc/grpc-js generic client). */
export const BotLinkClient = loaded.botlink.v1.BotLink;

/** A message as proto-loader gives it: plain fields, 64-bit integers as strings, a oneof by name. */
export type Wire = Record<string, unknown>;

/** The answer of a unary call: the message, or the gRPC status it failed with. */
export type UnaryResult = { ok: true; message: Wire } | { ok: false; code: grpc.status; details: string };

/** How a test bot authenticates and what it trusts. */
export interface GrpcJsBotOptions {
  /** host:port of the bot-link. */
  target: string;
  /** CA PEM the gateway's certificate must chain to. */
  ca: string;
  /** The client certificate; omitted presents none. */
  client?: CertPair;
  /** Extra channel options (compression, …). */
  channel?: grpc.ChannelOptions;
}

/** A @grpc/grpc-js BotLink client over mutual TLS. */
export function grpcJsClient(options: GrpcJsBotOptions): grpc.Client {
  const credentials = grpc.credentials.createSsl(
    readFileSync(options.ca),
    options.client ? readFileSync(options.client.key) : null,
    options.client ? readFileSync(options.client.cert) : null,
  );
  return new BotLinkClient(options.target, credentials, options.channel ?? {});
}

type UnaryMethod = (
  request: Wire,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: (err: grpc.ServiceError | null, value?: Wire) => void,
) => grpc.ClientUnaryCall;

/** Calls one of the unary RPCs (`ResolveChatEligibility`, `ValidatePreCheckout`, `ForwardPayment`). */
export function unary(client: grpc.Client, method: string, request: Wire, options: grpc.CallOptions = {}): Promise<UnaryResult> {
  const fn = (client as unknown as Record<string, UnaryMethod>)[method];
  if (typeof fn !== 'function') throw new Error(`no method ${method}`);
  return new Promise((resolve) => {
    fn.call(client, request, new grpc.Metadata(), options, (err, value) => {
      if (err) resolve({ ok: false, code: err.code, details: err.details });
      else resolve({ ok: true, message: value ?? {} });
    });
  });
}

/**
 * One Link stream played the way a bot written with @grpc/grpc-js would: writes FromBot messages,
 * records every ToBot, and records how the call ended (its status).
 */
export class GrpcJsLink {
  readonly received: Wire[] = [];
  /** Settles with the call's final status. */
  readonly ended: Promise<grpc.StatusObject>;
  /** Resolves once the server's response headers arrived (the gateway accepted the stream). */
  readonly headers: Promise<grpc.Metadata>;
  private readonly call: grpc.ClientDuplexStream<Wire, Wire>;
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(client: grpc.Client, options: grpc.CallOptions = {}) {
    const link = (client as unknown as { Link: (options: grpc.CallOptions) => grpc.ClientDuplexStream<Wire, Wire> }).Link;
    this.call = link.call(client, options);
    this.headers = new Promise((resolve) => this.call.on('metadata', resolve));
    this.ended = new Promise((resolve) => this.call.on('status', resolve));
    this.call.on('error', () => undefined); // the status carries it
    this.call.on('data', (message: Wire) => {
      this.received.push(message);
      for (const w of this.waiters.filter((x) => this.received.length >= x.count)) w.resolve();
    });
  }

  write(message: Wire): void {
    this.call.write(message);
  }

  hello(instanceId: string, ownsUpdates = false): this {
    this.write({ hello: { instance_id: instanceId, owns_updates: ownsUpdates } });
    return this;
  }

  /** Resolves once `count` ToBot messages arrived in total. */
  waitFor(count: number): Promise<Wire[]> {
    if (this.received.length >= count) return Promise.resolve(this.received.slice(0, count));
    return new Promise((resolve) => this.waiters.push({ count, resolve: () => resolve(this.received.slice(0, count)) }));
  }

  /** Half-closes the request side. */
  end(): void {
    this.call.end();
  }

  cancel(): void {
    this.call.cancel();
  }
}
