import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { create } from '@bufbuild/protobuf';
import { botlink } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import { RecentIds } from './recent-ids.js';
import { SendQueue } from './send-queue.js';
import type { BotlinkMetrics, CommandOutcomeLabel, LinkEndReason } from '../metrics/index.js';
import { DUPLICATE_COMMAND, LINK_LOST, QUEUE_FULL, type CommandPayload, type Outcome } from './outcome.js';

/** Who is on the other end of a Link: Hello fields plus the client certificate subject. */
export interface LinkIdentity {
  instanceId: string;
  ownsUpdates: boolean;
  /** Client certificate subject CN. */
  peer: string;
}

/** A command written (or waiting to be written) on one Link, until its Ack, timeout or link loss. */
export interface InFlight {
  readonly commandId: string;
  readonly kind: string;
  readonly message: botlink.ToBot;
  readonly startedMs: number;
  settled: boolean;
  timer: NodeJS.Timeout | undefined;
  resolve(outcome: Outcome): void;
}

/** One open Link stream as the hub sees it. */
export interface Link {
  readonly id: number;
  readonly identity: LinkIdentity;
  /** Commands the stream's writer takes and writes, in order. */
  readonly queue: SendQueue<InFlight>;
  /** Set once the Link has ended; its queue is closed then. */
  readonly endReason: LinkEndReason | undefined;
}

interface LinkState extends Link {
  endReason: LinkEndReason | undefined;
  readonly inFlight: Map<string, InFlight>;
}

/** Raised by `open` once the hub is closed (the gateway is stopping). */
export class HubClosedError extends Error {
  override readonly name = 'HubClosedError';
}

export interface HubOptions {
  metrics: BotlinkMetrics;
  logger: Logger;
  /** Per-Link bound of commands waiting to be written. */
  queueLimit: number;
  /** Called after a Link opened or ended (the cluster router follows which Links this gateway holds). */
  onLinksChanged?: () => void;
  /** The memory of command ids already written (default: RECENT_COMMAND_IDS for RECENT_COMMAND_TTL_MS). */
  recentIds?: RecentIds;
}

/** The metric label of a payload kind: the proto field name (send_to_user, chat_gate, …). */
export function kindLabel(kind: CommandPayload['case']): string {
  return kind.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * The gateway's command hub: one Link per bot instance (two or more only for live duplicates the
 * caller chose to keep), commands routed to the bot that owns updates (else any connected bot),
 * each written once with its command_id (the sender's, when a peer gateway relayed it; else a fresh
 * one) and correlated with its Ack. At-most-once: nothing is queued for later; when a Link ends,
 * everything in flight on it resolves at once as `error`/`link_lost` and is never re-sent on another
 * Link; a command id this hub already wrote (RecentIds) is dropped as `error`/`duplicate_command`,
 * counted, whatever brought the second copy.
 */
export class CommandHub {
  /** Open Links by Link id, in opening order. */
  private readonly links = new Map<number, LinkState>();
  private nextId = 1;
  private closed = false;
  private readonly written: RecentIds;

  constructor(private readonly options: HubOptions) {
    this.written = options.recentIds ?? new RecentIds();
  }

  /** Open Links. */
  get connected(): number {
    return this.links.size;
  }

  /** True while a Link of a bot that owns updates is open here. */
  get hasOwner(): boolean {
    for (const link of this.links.values()) if (link.identity.ownsUpdates) return true;
    return false;
  }

  /** Who is connected, for logs, health pages and tests (no command data). */
  snapshot(): LinkIdentity[] {
    return [...this.links.values()].map((link) => ({ ...link.identity }));
  }

  /** The open Links of `instanceId`, oldest first (more than one only while live duplicates are kept). */
  linksOf(instanceId: string): Link[] {
    return [...this.links.values()].filter((link) => link.identity.instanceId === instanceId);
  }

  /**
   * Registers a Link after its Hello. Links already open for the same instance_id are ended as
   * `replaced` first, except those in `keep`: live duplicates (another process using the same
   * instance_id), which stay open beside the new one. Throws HubClosedError once the hub is closed.
   */
  open(identity: LinkIdentity, keep: readonly Link[] = []): Link {
    if (this.closed) throw new HubClosedError('the gateway is shutting down');
    const previous = this.linksOf(identity.instanceId).filter((link) => !keep.includes(link));
    for (const link of previous) this.end(link, 'replaced');
    const link: LinkState = {
      id: this.nextId++,
      identity,
      queue: new SendQueue<InFlight>(this.options.queueLimit),
      endReason: undefined,
      inFlight: new Map(),
    };
    this.links.set(link.id, link);
    this.options.metrics.connectedBots.set(this.links.size);
    this.options.logger.info(
      {
        linkId: link.id,
        instanceId: identity.instanceId,
        peer: identity.peer,
        ownsUpdates: identity.ownsUpdates,
        replaced: previous.length > 0,
        sameInstanceKept: keep.length,
      },
      'bot link opened',
    );
    this.options.onLinksChanged?.();
    return link;
  }

  /** Ends a Link (idempotent): closes its queue and resolves its in-flight commands as link_lost. */
  end(link: Link, reason: LinkEndReason): void {
    const state = link as LinkState;
    if (state.endReason !== undefined) return;
    state.endReason = reason;
    this.links.delete(state.id);
    state.queue.close();
    const lost = [...state.inFlight.values()];
    for (const command of lost) this.settle(state, command, { status: 'error', error: LINK_LOST }, 'link_lost');
    this.options.metrics.connectedBots.set(this.links.size);
    this.options.metrics.linkEnds.inc({ reason });
    this.options.logger.info(
      { linkId: state.id, instanceId: state.identity.instanceId, peer: state.identity.peer, reason, lostCommands: lost.length },
      'bot link ended',
    );
    this.options.onLinksChanged?.();
  }

  /**
   * Sends one command and resolves with its outcome; never rejects. `no_bot` comes at once when no
   * Link is open; `queue_full` at once when the chosen Link's queue is full; `duplicate_command` at
   * once when `commandId` (a relayed command's, chosen by the gateway that took it from the backend)
   * was written here before.
   */
  send(payload: CommandPayload, options: { timeoutMs: number; commandId?: string }): Promise<Outcome> {
    const kind = kindLabel(payload.case);
    const link = this.pick();
    if (!link) {
      this.options.metrics.commands.inc({ kind, outcome: 'no_bot' });
      return Promise.resolve({ status: 'no_bot' });
    }
    const commandId = options.commandId ?? randomUUID();
    if (!this.written.add(commandId)) {
      this.options.metrics.duplicateCommands.inc();
      this.options.metrics.commands.inc({ kind, outcome: 'error' });
      this.options.logger.warn({ linkId: link.id, instanceId: link.identity.instanceId, kind, commandId }, 'duplicate command id dropped');
      return Promise.resolve({ status: 'error', error: DUPLICATE_COMMAND });
    }
    return new Promise<Outcome>((resolve) => {
      const command: InFlight = {
        commandId,
        kind,
        message: create(botlink.ToBotSchema, { command: { commandId, payload } }),
        startedMs: performance.now(),
        settled: false,
        timer: undefined,
        resolve,
      };
      if (!link.queue.push(command)) {
        this.options.metrics.commands.inc({ kind, outcome: 'error' });
        this.options.logger.warn({ linkId: link.id, instanceId: link.identity.instanceId, kind, commandId }, 'bot link send queue full');
        resolve({ status: 'error', error: QUEUE_FULL });
        return;
      }
      link.inFlight.set(commandId, command);
      command.timer = setTimeout(() => this.settle(link, command, { status: 'timeout' }, 'timeout'), options.timeoutMs);
    });
  }

  /** Correlates an Ack with its command on the same Link; an unknown or late id is counted and dropped. */
  ack(link: Link, ack: botlink.Ack): void {
    const state = link as LinkState;
    const command = state.inFlight.get(ack.commandId);
    if (!command) {
      this.options.metrics.unknownAcks.inc();
      this.options.logger.debug(
        { linkId: state.id, instanceId: state.identity.instanceId, commandId: ack.commandId },
        'ack for an unknown command dropped',
      );
      return;
    }
    const outcome: Outcome =
      ack.error !== ''
        ? { status: 'failed', error: ack.error }
        : ack.delivered
          ? { status: 'delivered', result: ack.result }
          : { status: 'not_delivered' };
    this.options.metrics.ackLatency.observe({ kind: command.kind }, (performance.now() - command.startedMs) / 1000);
    if (outcome.status === 'failed') {
      this.options.logger.warn(
        { linkId: state.id, instanceId: state.identity.instanceId, commandId: command.commandId, kind: command.kind, error: outcome.error },
        'bot reported a command failure',
      );
    }
    // A bot-reported failure keeps the `error` label of bot_commands_total (dashboards, alerts).
    this.settle(state, command, outcome, outcome.status === 'failed' ? 'error' : outcome.status);
  }

  /** Ends every Link as `shutdown` and refuses new ones. */
  close(): void {
    this.closed = true;
    for (const link of [...this.links.values()]) this.end(link, 'shutdown');
  }

  private pick(): LinkState | undefined {
    let any: LinkState | undefined;
    for (const link of this.links.values()) {
      if (link.identity.ownsUpdates) return link;
      any ??= link;
    }
    return any;
  }

  private settle(link: LinkState, command: InFlight, outcome: Outcome, label: CommandOutcomeLabel): void {
    if (command.settled) return;
    command.settled = true;
    clearTimeout(command.timer);
    link.inFlight.delete(command.commandId);
    this.options.metrics.commands.inc({ kind: command.kind, outcome: label });
    command.resolve(outcome);
  }
}
