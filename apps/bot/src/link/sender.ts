import { create } from '@bufbuild/protobuf';
import { createWritableIterable, type WritableIterable } from '@connectrpc/connect/protocol';
import { botlink } from '@wordgame/contracts';
import { settleWithin } from '../support/index.js';

/** One message for the stream, as the FromBot oneof. */
export type Outgoing = botlink.FromBot['msg'];

/**
 * The single sender of one Link stream. A gRPC stream forbids concurrent Send, so every outgoing
 * message (Hello, Acks, Health) is chained here and handed to the request iterable only after the
 * previous one was consumed by the transport. Messages sent after the stream ended are dropped
 * (`send` resolves false): the bot-link is at-most-once and never replays.
 */
export class LinkSender {
  /** The request stream to pass to the Link call. */
  readonly requests: WritableIterable<botlink.FromBot> = createWritableIterable<botlink.FromBot>();
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;

  /** Queues `msg` behind every earlier one; resolves true once the transport took it, false if dropped. */
  send(msg: Outgoing): Promise<boolean> {
    const message = create(botlink.FromBotSchema, { msg });
    const written = this.tail.then(async () => {
      if (this.closed) return false;
      await this.requests.write(message);
      return true;
    });
    this.tail = written.catch(() => false);
    return written.catch(() => false);
  }

  /** Resolves once everything queued so far was taken (or dropped), or after `ms`. */
  flush(ms: number): Promise<void> {
    return settleWithin(this.tail, ms);
  }

  /** Ends the request side of the stream; later sends are dropped. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.requests.close();
  }
}
