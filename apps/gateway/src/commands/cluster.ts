import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { createInbox, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { commandOutcomeOf, gatewayApi, toSendResponse } from '@wordgame/contracts';
import { settledWithin } from '@wordgame/lifecycle';
import type { Logger } from '@wordgame/logging';
import { MessageSeal, sealKey } from '@wordgame/service-kit';
import type { BotlinkMetrics, ClusterMetrics, ClusterRejection } from '../metrics/index.js';
import { kindLabel, type CommandHub } from './hub.js';
import type { CommandPayload, Outcome } from './outcome.js';
import type { CommandRouter } from './router.js';

/** Queue group every gateway joins, so one request reaches exactly one gateway. */
export const GATEWAY_QUEUE = 'gateways';
/** Extra wait for a reply beyond the command's own Ack timeout (the holder's answer path). */
const REPLY_MARGIN_MS = 2_000;

/** The two subjects of a cluster: the owner of updates' Link, and any Link. */
export function commandSubjects(prefix: string): { owner: string; any: string } {
  return { owner: `${prefix}.botlink.commands.owner`, any: `${prefix}.botlink.commands.any` };
}

/** Where a gateway's requests get their replies (its NATS user may subscribe there, ops/nats/nats.conf). */
export function replyPrefix(prefix: string): string {
  return `${prefix}.botlink.replies`;
}

/** The seals of relayed commands: one for requests, one for replies, so neither verifies as the other. */
export interface CommandSeals {
  requests: MessageSeal;
  replies: MessageSeal;
}

/**
 * Seals keyed from GATEWAY_INTERNAL_TOKEN, the secret every gateway (and no NATS user as such)
 * holds: a command relayed over NATS is believed as strictly as a call on the internal port.
 */
export function commandSeals(internalToken: string, now?: () => number): CommandSeals {
  return {
    requests: new MessageSeal({ key: sealKey(internalToken, 'botlink-commands'), ...(now ? { now } : {}) }),
    replies: new MessageSeal({ key: sealKey(internalToken, 'botlink-replies'), ...(now ? { now } : {}) }),
  };
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

export interface ClusterOptions {
  nc: NatsConnection;
  hub: CommandHub;
  metrics: BotlinkMetrics;
  /** Counts relayed messages refused for want of proof (gateway_nats_rejected_total). */
  clusterMetrics: ClusterMetrics;
  seals: CommandSeals;
  logger: Logger;
  /** NATS_SUBJECT_PREFIX: separates stacks sharing one NATS server. */
  prefix: string;
}

/** The most a stop waits (ms) for NATS to confirm the cluster's unsubscribes. */
export const CLUSTER_CLOSE_FLUSH_MS = 250;

/**
 * Bot commands across several gateways over NATS request/reply. Each gateway answers on the
 * owner subject while it holds the Link of a bot that owns updates, and on the any subject while it
 * holds any Link (queue group: one gateway per request); the gateway holding the Link writes the
 * command through its hub and replies with the Ack's outcome, `link_lost` included. A send tries
 * the owner first (the local hub when the owner is linked here), then any Link; NATS "no
 * responders" on both is `no_bot` at once. At-most-once: a request is published at most once per
 * subject and only "no responders" or a `no_bot` reply (nothing was written) moves on to the next;
 * a request left without a reply is `timeout` and never re-published. A gateway that dies loses its
 * subscriptions when its NATS connection drops, so its Links stop being chosen.
 *
 * Arriving over NATS proves nothing: a request is sealed (commandSeals) over its subject, its reply
 * subject and its body, and the receiving gateway writes it to the bot only if the seal verifies,
 * is fresh and was not seen before; anything else is dropped unanswered (its reply subject is not
 * authentic), counted and logged without its body. A reply is sealed over its subject and the
 * request's nonce, and the sender takes the first one that verifies, so a forged reply on the
 * inbox claims no outcome.
 */
export class ClusterCommandRouter implements CommandRouter {
  private readonly subjects: { owner: string; any: string };
  private readonly replies: string;
  private ownerSub: Subscription | undefined;
  private anySub: Subscription | undefined;
  private closed = false;

  constructor(private readonly options: ClusterOptions) {
    this.subjects = commandSubjects(options.prefix);
    this.replies = replyPrefix(options.prefix);
  }

  /** Subscribes or unsubscribes so the subjects follow the Links this gateway holds (call on every change). */
  sync(): void {
    if (this.closed) return;
    const { hub } = this.options;
    this.ownerSub = this.follow(this.ownerSub, hub.hasOwner, this.subjects.owner);
    this.anySub = this.follow(this.anySub, hub.connected > 0, this.subjects.any);
  }

  async send(payload: CommandPayload, options: { timeoutMs: number }): Promise<Outcome> {
    const { hub } = this.options;
    if (hub.hasOwner) return hub.send(payload, options);
    const owner = await this.remote(this.subjects.owner, payload, options.timeoutMs);
    if (owner !== undefined && owner.status !== 'no_bot') return owner;
    if (hub.connected > 0) return hub.send(payload, options);
    const any = await this.remote(this.subjects.any, payload, options.timeoutMs);
    if (any !== undefined && any.status !== 'no_bot') return any;
    this.options.metrics.commands.inc({ kind: kindLabel(payload.case), outcome: 'no_bot' });
    return { status: 'no_bot' };
  }

  /**
   * Unsubscribes, and waits at most CLUSTER_CLOSE_FLUSH_MS for the server to confirm (one round
   * trip), so other gateways stop choosing this one before its Links end. A connection gone silent
   * (the network gone mid-stop) would hold the flush until NATS's ping timeout notices, seconds of
   * the stop's budget; the drain that follows ends the subscriptions anyway.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.ownerSub?.unsubscribe();
    this.anySub?.unsubscribe();
    this.ownerSub = undefined;
    this.anySub = undefined;
    await settledWithin(this.options.nc.flush(), CLUSTER_CLOSE_FLUSH_MS);
  }

  /** One request to `subject`; undefined = no gateway answers there (nothing was sent). */
  private remote(subject: string, payload: CommandPayload, timeoutMs: number): Promise<Outcome | undefined> {
    const { nc, seals, metrics, logger } = this.options;
    const kind = kindLabel(payload.case);
    const inbox = createInbox(this.replies);
    const request = toBinary(gatewayApi.SendRequestSchema, create(gatewayApi.SendRequestSchema, { command: { payload }, timeoutMs }));
    const { bytes, nonce } = seals.requests.seal(subject, request, utf8(inbox));
    return new Promise((resolve) => {
      let settled = false;
      const finish = (outcome: Outcome | undefined) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        sub.unsubscribe();
        resolve(outcome);
      };
      const sub = nc.subscribe(inbox, {
        callback: (err, msg) => {
          if (err) {
            logger.warn({ err, subject, kind }, 'cluster reply subscription failed');
            metrics.commands.inc({ kind, outcome: 'error' });
            finish({ status: 'error', error: `cluster: ${err.message}` });
            return;
          }
          // The server's "no responders": nobody subscribes to `subject`, nothing was delivered.
          if (msg.data.byteLength === 0 && msg.headers?.code === 503) return finish(undefined);
          const opened = seals.replies.open(msg.subject, msg.data, nonce);
          if (!opened.ok) return this.rejected(opened.reason, 'reply', msg.subject);
          let response: gatewayApi.SendResponse;
          try {
            response = fromBinary(gatewayApi.SendResponseSchema, opened.payload);
          } catch {
            return this.rejected('undecodable', 'reply', msg.subject);
          }
          finish(commandOutcomeOf(response));
        },
      });
      const timer = setTimeout(() => {
        metrics.commands.inc({ kind, outcome: 'timeout' });
        finish({ status: 'timeout' });
      }, timeoutMs + REPLY_MARGIN_MS);
      try {
        nc.publish(subject, bytes, { reply: inbox });
      } catch (err: unknown) {
        // Published or not is unknown here: never re-published, reported as an error.
        logger.warn({ err, subject, kind }, 'cluster command request failed');
        metrics.commands.inc({ kind, outcome: 'error' });
        finish({ status: 'error', error: `cluster: ${err instanceof Error ? err.message : 'request failed'}` });
      }
    });
  }

  /** Drops a relayed message that proves nothing: counted and logged, never its body. */
  private rejected(reason: ClusterRejection, message: 'command' | 'reply', subject: string): void {
    this.options.clusterMetrics.rejected.inc({ reason });
    this.options.logger.warn({ reason, message, subject }, 'nats message rejected: no valid seal');
  }

  private follow(sub: Subscription | undefined, wanted: boolean, subject: string): Subscription | undefined {
    if (wanted && sub === undefined) {
      return this.options.nc.subscribe(subject, {
        queue: GATEWAY_QUEUE,
        callback: (err, msg) => (err ? this.options.logger.error({ err, subject }, 'cluster subscription failed') : this.answer(msg)),
      });
    }
    if (!wanted && sub !== undefined) {
      sub.unsubscribe();
      return undefined;
    }
    return sub;
  }

  /** Writes an authentic request that reached this gateway through its hub and replies with the sealed outcome. */
  private answer(msg: Msg): void {
    const { seals, hub } = this.options;
    const reply = msg.reply;
    const opened = seals.requests.open(msg.subject, msg.data, utf8(reply ?? ''));
    if (!opened.ok) return this.rejected(opened.reason, 'command', msg.subject);
    // Authentic, so is its reply subject: answering there is safe.
    if (reply === undefined || reply === '') return this.rejected('malformed', 'command', msg.subject);
    const respond = (outcome: Outcome) =>
      msg.respond(seals.replies.seal(reply, toBinary(gatewayApi.SendResponseSchema, toSendResponse(outcome)), opened.nonce).bytes);
    let request: gatewayApi.SendRequest;
    try {
      request = fromBinary(gatewayApi.SendRequestSchema, opened.payload);
    } catch {
      this.rejected('undecodable', 'command', msg.subject);
      respond({ status: 'error', error: 'cluster: undecodable request' });
      return;
    }
    const payload = request.command?.payload;
    if (payload === undefined || payload.case === undefined) {
      respond({ status: 'error', error: 'cluster: command without payload' });
      return;
    }
    void hub.send(payload, { timeoutMs: request.timeoutMs }).then(respond);
  }
}
