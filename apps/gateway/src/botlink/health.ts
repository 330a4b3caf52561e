import type { botlink } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import { CHAT_INPUTS, CHAT_OUTCOMES, type BotlinkMetrics } from '../metrics/index.js';

/** How far ahead of the gateway's clock a last_ok stamp may be before it is ignored. */
export const MAX_CLOCK_SKEW_SECONDS = 300n;

/** The outbox levels one Link last reported (additive Health fields 6 and 7). */
interface OutboxLevels {
  failingRows: bigint;
  oldestFailingAgeSeconds: bigint;
}

/**
 * Turns Health reports into the platform metrics. The counter grows by each report's deltas
 * (kind long_poll <- connect_failures, api <- api_errors, rate_limited <- rate_limited),
 * `bot_dead_letters_total` by the additive `dead_letters` delta (updates the bot parked),
 * `bot_platform_update_conflicts_total` by the additive `update_conflicts` delta (409s on the bot's
 * long poll: another poller with the same token) and `bot_platform_unreadable_responses_total` by
 * the additive `platform_unreadable_responses` delta (2xx answers the bot could not read); an older
 * bot never sets them, which reads as 0. The additive `chat_commands` deltas go to
 * `bot_chat_commands_total{input,outcome}` (and the rate-limited ones also to
 * `bot_chat_commands_rate_limited_total`), only for labels in their closed sets. The outbox levels (fields 6 and 7) are kept per open Link,
 * as last reported, and exposed as their sum (`bot_outbox_failing_rows`) and largest age
 * (`bot_outbox_oldest_failing_age_seconds`); a Link's levels leave with it (`linkEnded`), so a bot
 * that is gone is shown by BotDisconnected, not by a stale level. The last-ok stamp is the maximum
 * seen by this gateway across every Link and reconnect, so the gauge never moves backwards; before
 * the first report carrying a stamp it has no sample at all (a restarted gateway exposing 0 would
 * move it backwards). A stamp further in the future than MAX_CLOCK_SKEW_SECONDS is ignored, because
 * a bot with a broken clock would otherwise pin the gauge forever.
 */
export class PlatformHealth {
  private lastOk = 0n;
  private readonly outboxByLink = new Map<number, OutboxLevels>();

  constructor(
    private readonly metrics: BotlinkMetrics,
    private readonly logger: Logger,
    private readonly nowUnix: () => bigint = () => BigInt(Math.floor(Date.now() / 1000)),
  ) {}

  /** The highest accepted last_ok_unix so far (0 when none). */
  get lastOkUnix(): bigint {
    return this.lastOk;
  }

  /** Adds one report of the Link `linkId`; `instanceId` is for logging only. */
  record(report: botlink.Health, instanceId: string, linkId: number): void {
    this.add('long_poll', report.connectFailures);
    this.add('api', report.apiErrors);
    this.add('rate_limited', report.rateLimited);
    if (report.deadLetters > 0n) {
      this.metrics.deadLetters.inc(Number(report.deadLetters));
      this.logger.warn(
        { instanceId, deadLetters: report.deadLetters.toString() },
        'the bot parked updates as dead letters; an operator must look at its dead_letters table',
      );
    }
    if (report.updateConflicts > 0n) {
      this.metrics.updateConflicts.inc(Number(report.updateConflicts));
      this.logger.warn(
        { instanceId, updateConflicts: report.updateConflicts.toString() },
        'the platform answered 409 Conflict to the bot long poll: another process polls updates with the same bot token',
      );
    }
    if (report.platformUnreadableResponses > 0n) this.metrics.platformUnreadable.inc(Number(report.platformUnreadableResponses));
    this.addChatCommands(report.chatCommands, instanceId);
    this.setOutbox(linkId, { failingRows: report.outboxFailingRows, oldestFailingAgeSeconds: report.outboxOldestFailingAgeSeconds });
    const stamp = report.lastOkUnix;
    if (stamp <= this.lastOk) return;
    if (stamp > this.nowUnix() + MAX_CLOCK_SKEW_SECONDS) {
      this.logger.warn({ instanceId, lastOkUnix: stamp.toString() }, 'health last_ok_unix is in the future; ignored');
      return;
    }
    this.lastOk = stamp;
    this.metrics.platformLastOk.set(Number(stamp));
  }

  /** Forgets the outbox levels of a Link that ended. */
  linkEnded(linkId: number): void {
    if (this.outboxByLink.delete(linkId)) this.exposeOutbox();
  }

  private setOutbox(linkId: number, levels: OutboxLevels): void {
    const before = this.outboxByLink.get(linkId);
    this.outboxByLink.set(linkId, levels);
    if (levels.failingRows > 0n && (before === undefined || before.failingRows === 0n)) {
      this.logger.warn(
        { linkId, failingRows: levels.failingRows.toString(), oldestAgeSeconds: levels.oldestFailingAgeSeconds.toString() },
        'the bot has payments whose ForwardPayment keeps failing; it retries them (`outbox list` on the bot host shows why)',
      );
    }
    this.exposeOutbox();
  }

  private exposeOutbox(): void {
    let rows = 0n;
    let oldest = 0n;
    for (const levels of this.outboxByLink.values()) {
      rows += levels.failingRows;
      if (levels.oldestFailingAgeSeconds > oldest) oldest = levels.oldestFailingAgeSeconds;
    }
    this.metrics.outboxFailingRows.set(Number(rows));
    this.metrics.outboxOldestFailingAge.set(Number(oldest));
  }

  /** Adds the chat-command deltas whose labels are in the closed sets; any other entry (a newer or broken bot) is logged and left out. */
  private addChatCommands(entries: readonly botlink.ChatCommandCount[], instanceId: string): void {
    for (const { input, outcome, count } of entries) {
      if (count === 0n) continue;
      if (!isOneOf(CHAT_INPUTS, input) || !isOneOf(CHAT_OUTCOMES, outcome)) {
        this.logger.warn(
          { instanceId, count: count.toString() },
          'health chat_commands entry with an unknown input or outcome; not counted',
        );
        continue;
      }
      this.metrics.chatCommands.inc({ input, outcome }, Number(count));
      if (outcome === 'rate_limited') this.metrics.chatCommandsRateLimited.inc(Number(count));
    }
  }

  private add(kind: 'long_poll' | 'api' | 'rate_limited', delta: bigint): void {
    if (delta > 0n) this.metrics.platformErrors.inc({ kind }, Number(delta));
  }
}

function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}
