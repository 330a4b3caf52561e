import type http2 from 'node:http2';
import { Code, ConnectError, type HandlerContext } from '@connectrpc/connect';
import type { botlink } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import { HubClosedError, type CommandHub, type Link, type LinkIdentity } from '../commands/index.js';
import type { BotlinkMetrics } from '../metrics/index.js';
import type { PlatformHealth } from './health.js';
import { answersPing } from './liveness.js';
import { connectionKey, peerKey } from './peer.js';

export interface LinkHandlerDeps {
  hub: CommandHub;
  health: PlatformHealth;
  metrics: BotlinkMetrics;
  logger: Logger;
  /** A Link with no message from the bot for this long is closed (also bounds the wait for Hello). */
  idleTimeoutMs: number;
  /**
   * How long an open Link of the same instance_id has to answer a PING when a new Hello names that
   * id (BOTLINK_PING_TIMEOUT_MS): answered, it is a live duplicate; silent, the new Link replaces it.
   */
  duplicateProbeMs: number;
}

const MAX_INSTANCE_ID_LENGTH = 128;

/** Resolves `undefined` when nothing arrives within `ms` or the call is aborted. */
async function firstMessage(
  reader: AsyncIterator<botlink.FromBot>,
  signal: AbortSignal,
  ms: number,
): Promise<IteratorResult<botlink.FromBot> | undefined> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const giveUp = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([reader.next(), giveUp]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Closes the Link once no message has arrived for `ms`. Arrivals only stamp a time; the timer
 * re-arms for the remainder, so a busy stream costs no timer churn.
 */
function idleWatch(ms: number, onIdle: () => void): { touch(): void; stop(): void } {
  let last = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const arm = (delay: number) => {
    timer = setTimeout(() => {
      const left = last + ms - Date.now();
      if (left > 0) arm(left);
      else onIdle();
    }, delay);
  };
  arm(ms);
  return {
    touch: () => {
      last = Date.now();
    },
    stop: () => clearTimeout(timer),
  };
}

/**
 * The server side of `BotLink.Link`. The first message must be Hello (else InvalidArgument); the
 * Link then joins the hub, a reader dispatches Acks and Health, and the generator writes the
 * Link's queued commands in order. The Link ends when the bot or the network ends the call
 * (`ctx.signal`), when it is replaced by a newer Link of the same instance (Aborted), when it is
 * idle too long (DeadlineExceeded), or cleanly when the gateway stops.
 *
 * Same instance_id, reconnect or duplicate: a Hello naming the instance_id of an open Link
 * replaces that Link (a reconnect) unless the old Link is alive: on another HTTP/2 connection
 * than the new one (two streams of one connection are one process), and that connection answers
 * a PING sent now within `duplicateProbeMs` while the Link is still open. HTTP/2 frames arrive in
 * order, so a bot that had ended its old stream has said so before its PING answer; an answer
 * thus proves a process still holds the old stream, and a half-open or dead connection never
 * answers. A recent Health or Ack would prove nothing: a connection that died a second ago has one,
 * and a live bot may be silent for its whole Health interval. A live duplicate stays open beside
 * the new Link and is flagged like any second bot.
 *
 * A second owner of updates (owns_updates=true while a live Link of another instance_id, or a live
 * duplicate of the same one, owns them) is accepted and flagged, not refused:
 * `botlink_duplicate_owners_total` grows, an error is logged, `botlink_update_owners` shows 2 and
 * the BotDuplicateUpdateOwners alert fires if it lasts. Refusing would not stop the second bot polling the platform (the ping-pong is between
 * the bots and the platform, not the gateway), would only take its commands away, and would
 * refuse the legitimate overlap of a rolling deploy, where the new bot connects before the old
 * one's Link is gone; a refused new bot would then wait out its backoff while the old one dies.
 */
export function createLinkHandler(deps: LinkHandlerDeps) {
  const { hub, health, metrics, logger, idleTimeoutMs, duplicateProbeMs } = deps;
  /** The HTTP/2 connection each open Link arrived on. */
  const connections = new WeakMap<Link, http2.Http2Session>();

  /** Sets `botlink_update_owners` from the hub's open Links. */
  function countOwners(): void {
    metrics.updateOwners.set(hub.snapshot().filter((l) => l.ownsUpdates).length);
  }

  /**
   * A Hello with owns_updates=true while a bot of another instance_id, or a live duplicate of the
   * same one (`twins`), owns updates: the platform will answer one of them 409 on every poll. The
   * Link is accepted (see createLinkHandler) and flagged: counted, and logged at error level with
   * what to change. A live duplicate that owns nothing is logged at warn level.
   */
  function flagSecondBot(identity: LinkIdentity, twins: readonly Link[]): void {
    const { instanceId, peer } = identity;
    const sameId = twins.filter((l) => l.identity.ownsUpdates);
    const others = [...hub.snapshot().filter((l) => l.ownsUpdates && l.instanceId !== instanceId), ...sameId.map((l) => l.identity)];
    if (identity.ownsUpdates && others.length > 0) {
      metrics.duplicateOwners.inc();
      logger.error(
        { instanceId, peer, otherOwners: others.map((l) => l.instanceId), sameInstanceId: sameId.length > 0 },
        sameId.length > 0
          ? 'a second bot owns updates: a live process with the same instance_id already does, and the platform answers 409 to one of them on every poll; set OWNS_UPDATES=false on every bot but one, and leave BOT_INSTANCE_ID unset so each process gets its own'
          : 'a second bot owns updates: the platform answers 409 to one of them on every poll; set OWNS_UPDATES=false on every bot but one',
      );
    } else if (twins.length > 0) {
      logger.warn(
        { instanceId, peer, sameInstanceLinks: twins.length },
        'a second live bot process uses this instance_id; both Links kept: leave BOT_INSTANCE_ID unset so each process gets its own',
      );
    }
  }

  /** True when `link` is a live duplicate for a Hello that came on `connection` (see createLinkHandler). */
  async function alive(link: Link, connection: http2.Http2Session | undefined): Promise<boolean> {
    const theirs = connections.get(link);
    if (theirs === undefined || theirs === connection) return false;
    return (await answersPing(theirs, duplicateProbeMs)) && link.endReason === undefined;
  }

  /**
   * Opens the Link of a Hello: probes every open Link of its instance_id (again for any that open
   * meanwhile), then, with no await between the last probe and the hub, flags a second bot and
   * opens the Link beside the live duplicates, replacing the rest. Undefined when the call ended
   * while probing. Throws HubClosedError from the hub.
   */
  async function openLink(
    identity: LinkIdentity,
    connection: http2.Http2Session | undefined,
    signal: AbortSignal,
  ): Promise<Link | undefined> {
    const verdicts = new Map<Link, boolean>();
    for (;;) {
      const unknown = hub.linksOf(identity.instanceId).filter((l) => !verdicts.has(l));
      if (unknown.length === 0) break;
      const answers = await Promise.all(unknown.map((l) => alive(l, connection)));
      unknown.forEach((l, i) => verdicts.set(l, answers[i] === true));
    }
    if (signal.aborted) return undefined;
    const twins = hub.linksOf(identity.instanceId).filter((l) => verdicts.get(l) === true);
    flagSecondBot(identity, twins);
    const link = hub.open(identity, twins);
    if (connection) connections.set(link, connection);
    return link;
  }

  async function readLoop(reader: AsyncIterator<botlink.FromBot>, link: Link, touch: () => void): Promise<void> {
    const log = { linkId: link.id, instanceId: link.identity.instanceId };
    try {
      for (;;) {
        const next = await reader.next();
        if (next.done || link.endReason !== undefined) break;
        touch();
        const msg = next.value.msg;
        if (msg.case === 'ack') hub.ack(link, msg.value);
        else if (msg.case === 'health') health.record(msg.value, link.identity.instanceId, link.id);
        else logger.warn({ ...log, got: msg.case ?? 'empty' }, 'unexpected message on an open link ignored');
      }
    } catch (err: unknown) {
      logger.debug({ ...log, err }, 'link request stream failed');
    } finally {
      hub.end(link, 'stream_closed');
      health.linkEnded(link.id);
    }
  }

  return async function* link(requests: AsyncIterable<botlink.FromBot>, ctx: HandlerContext): AsyncGenerator<botlink.ToBot> {
    const peer = ctx.values.get(peerKey).subject;
    const reader = requests[Symbol.asyncIterator]();
    const first = await firstMessage(reader, ctx.signal, idleTimeoutMs);
    if (first === undefined || first.done || first.value.msg.case !== 'hello') {
      metrics.linkRejections.inc({ reason: 'no_hello' });
      logger.warn(
        { peer, got: first === undefined ? 'nothing' : first.done ? 'end of stream' : (first.value.msg.case ?? 'empty') },
        'bot link refused: first message is not Hello',
      );
      throw new ConnectError('the first message on Link must be Hello', Code.InvalidArgument);
    }
    const hello = first.value.msg.value;
    if (hello.instanceId === '' || hello.instanceId.length > MAX_INSTANCE_ID_LENGTH) {
      metrics.linkRejections.inc({ reason: 'invalid_hello' });
      logger.warn({ peer, instanceIdLength: hello.instanceId.length }, 'bot link refused: bad instance_id');
      throw new ConnectError(`Hello.instance_id must be 1-${MAX_INSTANCE_ID_LENGTH} characters`, Code.InvalidArgument);
    }
    const identity = { instanceId: hello.instanceId, ownsUpdates: hello.ownsUpdates, peer };
    const link = await openLink(identity, ctx.values.get(connectionKey), ctx.signal).catch((err: unknown) => {
      if (!(err instanceof HubClosedError)) throw err;
      metrics.linkRejections.inc({ reason: 'shutting_down' });
      throw new ConnectError('the gateway is shutting down', Code.Unavailable);
    });
    if (link === undefined) return;
    countOwners();
    const onAbort = () => hub.end(link, 'stream_closed');
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    const idle = idleWatch(idleTimeoutMs, () => hub.end(link, 'idle_timeout'));
    void readLoop(reader, link, () => idle.touch());
    try {
      if (ctx.signal.aborted) onAbort();
      for (;;) {
        const command = link.queue.shift();
        if (command === undefined) {
          if (await link.queue.wait()) continue;
          break;
        }
        if (!command.settled) yield command.message;
      }
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      idle.stop();
      hub.end(link, 'stream_closed');
      countOwners();
    }
    if (link.endReason === 'replaced') throw new ConnectError('replaced by a newer Link from the same instance_id', Code.Aborted);
    if (link.endReason === 'idle_timeout') throw new ConnectError(`no message from the bot for ${idleTimeoutMs} ms`, Code.DeadlineExceeded);
  };
}
