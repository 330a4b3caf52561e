import { Code, ConnectError, type HandlerContext } from '@connectrpc/connect';
import type { botlink } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import { HubClosedError, type CommandHub, type Link } from '../commands/hub.js';
import type { BotlinkMetrics } from '../metrics/botlink-metrics.js';
import type { PlatformHealth } from './health.js';
import { peerKey } from './peer.js';

export interface LinkHandlerDeps {
  hub: CommandHub;
  health: PlatformHealth;
  metrics: BotlinkMetrics;
  logger: Logger;
  /** A Link with no message from the bot for this long is closed (also bounds the wait for Hello). */
  idleTimeoutMs: number;
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
 * A second owner of updates (owns_updates=true from another instance_id while one is connected)
 * is accepted and flagged, not refused: `botlink_duplicate_owners_total` grows, an error is
 * logged, `botlink_update_owners` shows 2 and the BotDuplicateUpdateOwners alert fires if it
 * lasts. Refusing would not stop the second bot polling the platform (the ping-pong is between
 * the bots and the platform, not the gateway), would only take its commands away, and would
 * refuse the legitimate overlap of a rolling deploy, where the new bot connects before the old
 * one's Link is gone; a refused new bot would then wait out its backoff while the old one dies.
 */
export function createLinkHandler(deps: LinkHandlerDeps) {
  const { hub, health, metrics, logger, idleTimeoutMs } = deps;

  /** Sets `botlink_update_owners` from the hub's open Links. */
  function countOwners(): void {
    metrics.updateOwners.set(hub.snapshot().filter((l) => l.ownsUpdates).length);
  }

  /**
   * A Hello with owns_updates=true while a bot of another instance_id owns updates: the platform
   * will answer one of them 409 on every poll. The Link is accepted (see createLinkHandler) and
   * flagged: counted, and logged at error level with what to change.
   */
  function flagSecondOwner(instanceId: string, peer: string): void {
    const others = hub.snapshot().filter((l) => l.ownsUpdates && l.instanceId !== instanceId);
    if (others.length === 0) return;
    metrics.duplicateOwners.inc();
    logger.error(
      { instanceId, peer, otherOwners: others.map((l) => l.instanceId) },
      'a second bot owns updates: the platform answers 409 to one of them on every poll; set OWNS_UPDATES=false on every bot but one',
    );
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
    if (hello.ownsUpdates) flagSecondOwner(hello.instanceId, peer);
    let link: Link;
    try {
      link = hub.open({ instanceId: hello.instanceId, ownsUpdates: hello.ownsUpdates, peer });
    } catch (err: unknown) {
      if (!(err instanceof HubClosedError)) throw err;
      metrics.linkRejections.inc({ reason: 'shutting_down' });
      throw new ConnectError('the gateway is shutting down', Code.Unavailable);
    }
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
