import { create } from '@bufbuild/protobuf';
import { createClient, type Client, type Transport } from '@connectrpc/connect';
import { botlink } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import type { HealthCounters } from '../platform/index.js';
import { type Backoff, settleWithin, sleep } from '../support/index.js';
import { LinkSender } from './sender.js';

/** What a command came to: the Ack's fields besides command_id. */
export interface CommandOutcome {
  delivered: boolean;
  /** Non-empty only for an unexpected failure (never together with delivered=true). */
  error: string;
  result: string;
}

/** Executes one Command; may throw, which is acked as an unexpected failure. */
export type CommandHandler = (command: botlink.Command, logger: Logger) => Promise<CommandOutcome>;

export interface LinkClientOptions {
  transport: Transport;
  instanceId: string;
  ownsUpdates: boolean;
  counters: HealthCounters;
  onCommand: CommandHandler;
  /** Reconnect delays; reset once a stream stayed open `backoffResetAfterMs`. */
  backoff: Backoff;
  backoffResetAfterMs: number;
  healthIntervalMs: number;
  /**
   * Whether the gateway answered on the stream's connection (LinkTransport.answered). The gateway
   * sends no response headers until its first command, so this is how the bot learns that the
   * stream was accepted; without it only response headers count.
   */
  answered?: () => Promise<boolean>;
  logger: Logger;
}

/**
 * The bot's end of the bot-link: holds one Link stream to the gateway and reopens it with
 * exponential backoff and jitter whenever it ends. Each stream starts with Hello; commands run
 * concurrently and each gets exactly one Ack; a Health report goes up right behind the Hello (a
 * gateway that has just restarted knows no liveness stamp until it gets one) and then every
 * `healthIntervalMs`. Everything written to a stream goes through its single LinkSender.
 *
 * Health carries the deltas `HealthCounters.take()` hands out. A report taken just before a
 * stream dies is dropped with the stream and not re-added to the next one: the gateway's counter
 * then undercounts, which the spec accepts, and never counts anything twice.
 *
 * An Ack for a command whose stream has ended is dropped too: commands are at-most-once and the
 * gateway has already settled them as not delivered.
 */
export class LinkClient {
  /** The BotLink client on the same connection, for the unary RPCs. */
  readonly rpc: Client<typeof botlink.BotLink>;
  private readonly stopping = new AbortController();
  private readonly inflight = new Set<Promise<unknown>>();
  private running: Promise<void> | undefined;
  private call: AbortController | undefined;
  private sender: LinkSender | undefined;
  private accepted = false;
  private streams = 0;

  constructor(private readonly options: LinkClientOptions) {
    this.rpc = createClient(botlink.BotLink, options.transport);
  }

  /** True while a Link stream is open: the gateway answered its headers (it accepted the stream). */
  get connected(): boolean {
    return this.accepted;
  }

  /** How many Link streams were opened so far. */
  get streamsOpened(): number {
    return this.streams;
  }

  /** Starts holding the stream (returns at once; connection failures are retried, never thrown). */
  start(): void {
    this.running ??= this.loop();
  }

  /**
   * Stops: waits up to `graceMs` for in-flight commands to be acked and written, then ends the
   * request side and cancels the stream. Resolves once the loop has exited.
   */
  async stop(graceMs: number): Promise<void> {
    if (this.stopping.signal.aborted) return this.running;
    this.stopping.abort();
    const deadline = Date.now() + graceMs;
    if (this.inflight.size > 0) await settleWithin(Promise.allSettled([...this.inflight]), graceMs);
    await this.sender?.flush(Math.max(0, deadline - Date.now()));
    this.sender?.close();
    this.call?.abort();
    await this.running;
  }

  private async loop(): Promise<void> {
    const { backoff, logger } = this.options;
    while (!this.stopping.signal.aborted) {
      const opened = Date.now();
      try {
        await this.runStream();
        if (!this.stopping.signal.aborted) logger.warn('bot-link stream ended by the gateway');
      } catch (err: unknown) {
        if (!this.stopping.signal.aborted) logger.warn({ err: errorText(err) }, 'bot-link stream failed');
      }
      if (this.stopping.signal.aborted) break;
      if (Date.now() - opened >= this.options.backoffResetAfterMs) backoff.reset();
      const delayMs = backoff.next();
      logger.info({ delayMs }, 'bot-link reconnecting after backoff');
      await sleep(delayMs, this.stopping.signal);
    }
  }

  private async runStream(): Promise<void> {
    const { counters, instanceId, ownsUpdates, logger } = this.options;
    const sender = new LinkSender();
    const call = new AbortController();
    this.sender = sender;
    this.call = call;
    this.streams += 1;
    // The stream counts as open only once the gateway accepted it (response headers, or an answer
    // on its connection after the stream went out): a refused client certificate or a refusal
    // status never gets there, so the log never says "opened" for a stream that was not.
    const accept = (): void => {
      if (this.sender !== sender || call.signal.aborted || this.accepted) return;
      this.accepted = true;
      logger.info({ instanceId, ownsUpdates }, 'bot-link stream opened');
    };
    const responses = this.rpc.link(sender.requests, { signal: call.signal, onHeader: accept });
    const report = (): void => {
      void sender.send({ case: 'health', value: create(botlink.HealthSchema, counters.take()) });
    };
    void sender.send({ case: 'hello', value: create(botlink.HelloSchema, { instanceId, ownsUpdates }) }).then(async (written) => {
      if (!written) return;
      report();
      if (await this.options.answered?.()) accept();
    });
    const health = setInterval(report, this.options.healthIntervalMs);
    try {
      for await (const message of responses) {
        if (message.command) this.dispatch(message.command, sender);
      }
    } finally {
      clearInterval(health);
      sender.close();
      if (this.sender === sender) {
        this.sender = undefined;
        this.accepted = false;
      }
    }
  }

  private dispatch(command: botlink.Command, sender: LinkSender): void {
    const log = this.options.logger.child({ commandId: command.commandId, command: command.payload.case ?? 'none' });
    const task = this.options
      .onCommand(command, log)
      .catch((err: unknown): CommandOutcome => {
        log.error({ err: errorText(err) }, 'command failed unexpectedly');
        return { delivered: false, error: 'internal error', result: '' };
      })
      .then(async (outcome) => {
        const ack = create(botlink.AckSchema, { commandId: command.commandId, ...outcome });
        const written = await sender.send({ case: 'ack', value: ack });
        if (!written) log.info({ delivered: outcome.delivered }, 'ack dropped: its stream has ended');
      });
    this.inflight.add(task);
    void task.finally(() => this.inflight.delete(task));
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
