import { readFileSync } from 'node:fs';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { ConnectError, createClient } from '@connectrpc/connect';
import { createWritableIterable } from '@connectrpc/connect/protocol';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { botlink } from '@wordgame/contracts';
import type { CertPair } from '@wordgame/testkit';

export type FromBotInit = MessageInitShape<typeof botlink.FromBotSchema>;
export type AckInit = Omit<MessageInitShape<typeof botlink.AckSchema>, 'commandId' | '$typeName'>;

export interface TestBotOptions {
  /** https://host:port of the bot-link (or of a proxy in front of it). */
  url: string;
  ca: string;
  /** Client certificate; omitted means none is presented. */
  client?: CertPair;
  /** Answers each received command; undefined leaves it unacked. Default: delivered, result = command_id. */
  answer?: (command: botlink.Command) => AckInit | undefined;
}

/**
 * A bot-side Link client for tests: real gRPC over HTTP/2 with mutual TLS, written with
 * connect-node's createGrpcTransport and a writable request iterable, on its own connection.
 */
export class TestBot {
  readonly received: botlink.Command[] = [];
  /** Settles when the response stream ends: undefined for a clean end, else the error. */
  readonly ended: Promise<ConnectError | undefined>;
  private readonly requests = createWritableIterable<FromBotInit>();
  private readonly abort = new AbortController();
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(private readonly options: TestBotOptions) {
    const transport = createGrpcTransport({
      baseUrl: options.url,
      nodeOptions: {
        ca: readFileSync(options.ca),
        ...(options.client ? { cert: readFileSync(options.client.cert), key: readFileSync(options.client.key) } : {}),
      },
    });
    const client = createClient(botlink.BotLink, transport);
    const responses = client.link(this.requests, { signal: this.abort.signal });
    this.ended = (async () => {
      try {
        for await (const res of responses) if (res.command) this.onCommand(res.command);
        return undefined;
      } catch (err: unknown) {
        return ConnectError.from(err);
      }
    })();
  }

  /** Queues one message on the request stream (writes are consumed in order). */
  send(message: FromBotInit): void {
    this.requests.write(message).catch(() => undefined);
  }

  hello(instanceId: string, ownsUpdates = false): this {
    this.send({ msg: { case: 'hello', value: { instanceId, ownsUpdates } } });
    return this;
  }

  ack(commandId: string, ack: AckInit): void {
    this.send({ msg: { case: 'ack', value: { commandId, ...ack } } });
  }

  health(report: MessageInitShape<typeof botlink.HealthSchema>): void {
    this.send({ msg: { case: 'health', value: report } });
  }

  /** Resolves once `count` commands in total have arrived. */
  waitForCommands(count: number): Promise<botlink.Command[]> {
    if (this.received.length >= count) return Promise.resolve(this.received.slice(0, count));
    return new Promise((resolve) => {
      this.waiters.push({ count, resolve: () => resolve(this.received.slice(0, count)) });
    });
  }

  /** Ends the request stream and cancels the call; resolves when the response side has ended. */
  async close(): Promise<void> {
    this.requests.close();
    this.abort.abort();
    await this.ended;
  }

  private onCommand(command: botlink.Command): void {
    this.received.push(command);
    const answer = this.options.answer ?? ((c: botlink.Command) => ({ delivered: true, result: c.commandId }));
    const ack = answer(command);
    if (ack) this.ack(command.commandId, ack);
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const waiter = this.waiters[i];
      if (waiter && this.received.length >= waiter.count) {
        this.waiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }
}
