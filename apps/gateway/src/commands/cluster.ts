import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { RequestError, TimeoutError, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { gatewayApi } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import type { BotlinkMetrics } from '../metrics/botlink-metrics.js';
import { kindLabel, type CommandHub } from './hub.js';
import { toSendResponse } from './internal-service.js';
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

/** The outcome a SendResponse carries (the inverse of toSendResponse). */
export function outcomeOf(res: gatewayApi.SendResponse): Outcome {
  switch (res.outcome) {
    case gatewayApi.Outcome.DELIVERED:
      return { status: 'delivered', result: res.result };
    case gatewayApi.Outcome.NOT_DELIVERED:
      return { status: 'not_delivered' };
    case gatewayApi.Outcome.TIMEOUT:
      return { status: 'timeout' };
    case gatewayApi.Outcome.NO_BOT:
      return { status: 'no_bot' };
    default:
      return { status: 'error', error: res.error || 'unspecified outcome' };
  }
}

export interface ClusterOptions {
  nc: NatsConnection;
  hub: CommandHub;
  metrics: BotlinkMetrics;
  logger: Logger;
  /** NATS_SUBJECT_PREFIX: separates stacks sharing one NATS server. */
  prefix: string;
}

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
 */
export class ClusterCommandRouter implements CommandRouter {
  private readonly subjects: { owner: string; any: string };
  private ownerSub: Subscription | undefined;
  private anySub: Subscription | undefined;
  private closed = false;

  constructor(private readonly options: ClusterOptions) {
    this.subjects = commandSubjects(options.prefix);
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

  async close(): Promise<void> {
    this.closed = true;
    this.ownerSub?.unsubscribe();
    this.anySub?.unsubscribe();
    this.ownerSub = undefined;
    this.anySub = undefined;
    await this.options.nc.flush().catch(() => undefined);
  }

  /** One request to `subject`; undefined = no gateway answers there (nothing was sent). */
  private async remote(subject: string, payload: CommandPayload, timeoutMs: number): Promise<Outcome | undefined> {
    const request = toBinary(gatewayApi.SendRequestSchema, create(gatewayApi.SendRequestSchema, { command: { payload }, timeoutMs }));
    try {
      const reply = await this.options.nc.request(subject, request, { timeout: timeoutMs + REPLY_MARGIN_MS });
      return outcomeOf(fromBinary(gatewayApi.SendResponseSchema, reply.data));
    } catch (err: unknown) {
      if (err instanceof RequestError && err.isNoResponders()) return undefined;
      const kind = kindLabel(payload.case);
      if (err instanceof TimeoutError || (err instanceof RequestError && err.cause instanceof TimeoutError)) {
        this.options.metrics.commands.inc({ kind, outcome: 'timeout' });
        return { status: 'timeout' };
      }
      // Published or not is unknown here: never re-published, reported as an error.
      this.options.logger.warn({ err, subject, kind }, 'cluster command request failed');
      this.options.metrics.commands.inc({ kind, outcome: 'error' });
      return { status: 'error', error: `cluster: ${err instanceof Error ? err.message : 'request failed'}` };
    }
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

  /** Writes a request that reached this gateway through its hub and replies with the outcome. */
  private answer(msg: Msg): void {
    let request: gatewayApi.SendRequest;
    try {
      request = fromBinary(gatewayApi.SendRequestSchema, msg.data);
    } catch {
      msg.respond(toBinary(gatewayApi.SendResponseSchema, toSendResponse({ status: 'error', error: 'cluster: undecodable request' })));
      return;
    }
    const payload = request.command?.payload;
    if (payload === undefined || payload.case === undefined) {
      msg.respond(toBinary(gatewayApi.SendResponseSchema, toSendResponse({ status: 'error', error: 'cluster: command without payload' })));
      return;
    }
    void this.options.hub.send(payload, { timeoutMs: request.timeoutMs }).then((outcome) => {
      msg.respond(toBinary(gatewayApi.SendResponseSchema, toSendResponse(outcome)));
    });
  }
}
