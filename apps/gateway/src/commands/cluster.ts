import { randomBytes, randomUUID } from 'node:crypto';
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
/**
 * How long (ms) a gateway keeps its offer to write a relayed command open for the sender's grant:
 * the grant follows the offer by one NATS round trip; past this the offer lapses, unwritten.
 */
export const OFFER_TTL_MS = 5_000;

/** The two subjects of a cluster: the owner of updates' Link, and any Link. */
export function commandSubjects(prefix: string): { owner: string; any: string } {
  return { owner: `${prefix}.botlink.commands.owner`, any: `${prefix}.botlink.commands.any` };
}

/** Where gateways take grants: `<grants>.<random id>`, one subject per gateway (within the command subjects' permission). */
export function grantPrefix(prefix: string): string {
  return `${prefix}.botlink.commands.grants`;
}

/** Where a gateway's requests get their replies (its NATS user may subscribe there, ops/nats/nats.conf). */
export function replyPrefix(prefix: string): string {
  return `${prefix}.botlink.replies`;
}

/** The seals of relayed commands, one per kind of message, so none verifies as another. */
export interface CommandSeals {
  /** A command for whichever gateway takes it, over its subject, its reply inbox and its body. */
  requests: MessageSeal;
  /** A gateway's offer to write a request, over the sender's inbox and the request's nonce; its body is the gateway's grant subject. */
  offers: MessageSeal;
  /** The sender's go-ahead to the one gateway whose offer it took, over that gateway's grant subject and the reply inbox; its body is the offer's nonce. */
  grants: MessageSeal;
  /** An outcome, over the inbox and the nonce of the request (nothing written) or of the grant it answers. */
  replies: MessageSeal;
}

/**
 * Seals keyed from GATEWAY_INTERNAL_TOKEN, the secret every gateway (and no NATS user as such)
 * holds: a command relayed over NATS is believed as strictly as a call on the internal port.
 */
export function commandSeals(internalToken: string, now?: () => number): CommandSeals {
  return {
    requests: new MessageSeal({ key: sealKey(internalToken, 'botlink-commands'), ...(now ? { now } : {}) }),
    offers: new MessageSeal({ key: sealKey(internalToken, 'botlink-offers'), ...(now ? { now } : {}) }),
    grants: new MessageSeal({ key: sealKey(internalToken, 'botlink-grants'), ...(now ? { now } : {}) }),
    replies: new MessageSeal({ key: sealKey(internalToken, 'botlink-replies'), ...(now ? { now } : {}) }),
  };
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** A relayed command this gateway offered to write, until the sender's grant or OFFER_TTL_MS. */
interface Offer {
  readonly payload: CommandPayload;
  readonly commandId: string;
  readonly timeoutMs: number;
  /** The sender's inbox: the grant must name it as its reply subject. */
  readonly inbox: string;
  readonly timer: NodeJS.Timeout;
}

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
  /** How long an offer waits for its grant (default OFFER_TTL_MS). */
  offerTtlMs?: number;
}

/** The most a stop waits (ms) for NATS to confirm the cluster's unsubscribes. */
export const CLUSTER_CLOSE_FLUSH_MS = 250;

/**
 * Bot commands across several gateways over NATS request/reply. Each gateway answers on the
 * owner subject while it holds the Link of a bot that owns updates, and on the any subject while it
 * holds any Link (queue group: one gateway per request). A send tries the owner first (the local
 * hub when the owner is linked here), then any Link; NATS "no responders" on both is `no_bot` at
 * once. A gateway that dies loses its subscriptions when its NATS connection drops, so its Links
 * stop being chosen.
 *
 * At-most-once whatever NATS answers: the sender picks the command id once and a gateway that
 * takes a request does not write it but answers with a sealed offer; only the sender's sealed
 * grant, sent to the first offer and to no other, makes it write the command (with that id, which
 * its hub writes at most once) and reply with the Ack's outcome, `link_lost` included. An unsealed
 * status proves nothing (anyone holding the gateway NKEY can answer "no responders"): before a
 * grant it moves the send on to the next subject, which is safe because nothing ungranted is ever
 * written (the offer lapses, counted); after the grant it is ignored and the outcome awaited. A
 * request is published at most once per subject, a request or grant left without a reply is
 * `timeout` and never re-published. A request without a command id (a gateway of the previous
 * release, during a rolling deploy) is written at once, as before.
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
  private readonly grantsPrefix: string;
  /** This gateway's grant subject: where the senders of the requests it offered to write send their grants. */
  private readonly grantSubject: string;
  private ownerSub: Subscription | undefined;
  private anySub: Subscription | undefined;
  private grantSub: Subscription | undefined;
  /** Open offers by the offer's nonce (hex). */
  private readonly offers = new Map<string, Offer>();
  private closed = false;

  constructor(private readonly options: ClusterOptions) {
    this.subjects = commandSubjects(options.prefix);
    this.replies = replyPrefix(options.prefix);
    this.grantsPrefix = grantPrefix(options.prefix);
    this.grantSubject = `${this.grantsPrefix}.${randomBytes(12).toString('hex')}`;
  }

  /** Subscribes or unsubscribes so the subjects follow the Links this gateway holds (call on every change). */
  sync(): void {
    if (this.closed) return;
    const { hub, nc, logger } = this.options;
    this.grantSub ??= nc.subscribe(this.grantSubject, {
      callback: (err, msg) => (err ? logger.error({ err, subject: this.grantSubject }, 'cluster subscription failed') : this.granted(msg)),
    });
    this.ownerSub = this.follow(this.ownerSub, hub.hasOwner, this.subjects.owner);
    this.anySub = this.follow(this.anySub, hub.connected > 0, this.subjects.any);
  }

  async send(payload: CommandPayload, options: { timeoutMs: number }): Promise<Outcome> {
    const { hub } = this.options;
    // One id for every path the command may take: a gateway writes an id at most once.
    const commandId = randomUUID();
    if (hub.hasOwner) return hub.send(payload, { ...options, commandId });
    const owner = await this.remote(this.subjects.owner, payload, commandId, options.timeoutMs);
    if (owner !== undefined && owner.status !== 'no_bot') return owner;
    if (hub.connected > 0) return hub.send(payload, { ...options, commandId });
    const any = await this.remote(this.subjects.any, payload, commandId, options.timeoutMs);
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
    this.grantSub?.unsubscribe();
    this.ownerSub = undefined;
    this.anySub = undefined;
    this.grantSub = undefined;
    // Offers not granted yet are never written now.
    for (const offer of this.offers.values()) clearTimeout(offer.timer);
    this.offers.clear();
    await settledWithin(this.options.nc.flush(), CLUSTER_CLOSE_FLUSH_MS);
  }

  /**
   * One request to `subject`; undefined = nothing was written there and nothing will be (no
   * responders, or an unsealed status before any grant: whoever took the request holds only an
   * offer, which lapses). The first sealed offer is granted; an outcome is taken only sealed.
   */
  private remote(subject: string, payload: CommandPayload, commandId: string, timeoutMs: number): Promise<Outcome | undefined> {
    const { nc, seals, metrics, logger } = this.options;
    const kind = kindLabel(payload.case);
    const inbox = createInbox(this.replies);
    const request = toBinary(
      gatewayApi.SendRequestSchema,
      create(gatewayApi.SendRequestSchema, { command: { commandId, payload }, timeoutMs }),
    );
    const { bytes, nonce } = seals.requests.seal(subject, request, utf8(inbox));
    /** The nonce of the grant once one was sent: from then on only its sealed outcome counts. */
    let grant: Uint8Array | undefined;
    const decide = (msg: Msg): Outcome | undefined | 'wait' => {
      // "No responders" carries no seal: the server's, or anyone's holding the gateway NKEY.
      if (msg.data.byteLength === 0 && msg.headers?.code === 503) return grant === undefined ? undefined : 'wait';
      if (grant === undefined) {
        const offer = seals.offers.open(msg.subject, msg.data, nonce);
        if (offer.ok) {
          grant = this.grant(offer.payload, offer.nonce, inbox);
          return grant === undefined ? { status: 'error', error: 'cluster: grant not sent' } : 'wait';
        }
      }
      const opened = seals.replies.open(msg.subject, msg.data, grant ?? nonce);
      if (!opened.ok) {
        // Another gateway took a copy of the request (re-published by someone): its offer is never granted.
        if (grant !== undefined && seals.offers.open(msg.subject, msg.data, nonce).ok) this.rejected('second_offer', 'offer', msg.subject);
        else this.rejected(opened.reason, 'reply', msg.subject);
        return 'wait';
      }
      try {
        return commandOutcomeOf(fromBinary(gatewayApi.SendResponseSchema, opened.payload));
      } catch {
        this.rejected('undecodable', 'reply', msg.subject);
        return 'wait';
      }
    };
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
          const decided = decide(msg);
          if (decided !== 'wait') finish(decided);
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

  /** Sends the grant for an offer (body: the grant subject); its nonce, or undefined when it could not be sent. */
  private grant(body: Uint8Array, offerNonce: Uint8Array, inbox: string): Uint8Array | undefined {
    const { nc, seals, logger } = this.options;
    const subject = new TextDecoder().decode(body);
    if (!subject.startsWith(`${this.grantsPrefix}.`) || /[\s*>]/.test(subject)) {
      this.rejected('undecodable', 'offer', subject);
      return undefined;
    }
    const sealed = seals.grants.seal(subject, offerNonce, utf8(inbox));
    try {
      nc.publish(subject, sealed.bytes, { reply: inbox });
      return sealed.nonce;
    } catch (err: unknown) {
      // Sent or not is unknown: the outcome is awaited (or times out), never sent elsewhere.
      logger.warn({ err, subject }, 'cluster grant failed');
      return sealed.nonce;
    }
  }

  /** Drops a relayed message that proves nothing: counted and logged, never its body. */
  private rejected(reason: ClusterRejection, message: 'command' | 'offer' | 'grant' | 'reply', subject: string): void {
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

  /**
   * Answers an authentic request that reached this gateway: with a sealed offer to write it (kept
   * OFFER_TTL_MS for the sender's grant), or `no_bot` when no Link is open here (nothing written).
   */
  private answer(msg: Msg): void {
    const { seals, hub, clusterMetrics, logger } = this.options;
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
    const commandId = request.command?.commandId ?? '';
    // A gateway of the previous release sends no command id and expects the outcome at once.
    if (commandId === '') {
      void hub.send(payload, { timeoutMs: request.timeoutMs }).then(respond);
      return;
    }
    if (hub.connected === 0) {
      respond({ status: 'no_bot' });
      return;
    }
    const offer = seals.offers.seal(reply, utf8(this.grantSubject), opened.nonce);
    const key = hex(offer.nonce);
    const timer = setTimeout(() => {
      if (!this.offers.delete(key)) return;
      clusterMetrics.offersLapsed.inc();
      logger.warn({ subject: msg.subject, kind: kindLabel(payload.case) }, 'cluster offer lapsed without a grant: command not written');
    }, this.options.offerTtlMs ?? OFFER_TTL_MS);
    this.offers.set(key, { payload, commandId, timeoutMs: request.timeoutMs, inbox: reply, timer });
    msg.respond(offer.bytes);
  }

  /** Writes the command of a granted offer through the hub and replies with the outcome, sealed over the grant. */
  private granted(msg: Msg): void {
    const { seals, hub, logger } = this.options;
    const reply = msg.reply ?? '';
    const opened = seals.grants.open(msg.subject, msg.data, utf8(reply));
    if (!opened.ok) return this.rejected(opened.reason, 'grant', msg.subject);
    const key = hex(opened.payload);
    const offer = this.offers.get(key);
    if (offer === undefined || offer.inbox !== reply) {
      // Lapsed (counted then) or never made here: nothing is written.
      logger.warn({ subject: msg.subject }, 'cluster grant for no open offer: command not written');
      return;
    }
    this.offers.delete(key);
    clearTimeout(offer.timer);
    void hub.send(offer.payload, { timeoutMs: offer.timeoutMs, commandId: offer.commandId }).then((outcome) => {
      msg.respond(seals.replies.seal(reply, toBinary(gatewayApi.SendResponseSchema, toSendResponse(outcome)), opened.nonce).bytes);
    });
  }
}
