import type { Logger } from '@wordgame/logging';
import { isInChat, type PlatformClient, type TgChat, type TgUpdate, type TgUser } from '../platform/index.js';
import type { ChatGateRetries, ChatGateRetry } from '../store/index.js';
import { Backoff, type BackoffOptions, delayAfter, sleep } from '../support/index.js';
import { setWriteAccess, standingIn } from './write-access.js';

/** The eligibility answer the bot acts on (ResolveChatEligibility). */
export type ResolveEligibility = (externalId: string) => Promise<{ registered: boolean; eligible: boolean }>;

/** A user who just entered the discussion chat; `unrestricted` when they joined as a plain member. */
export interface Joiner {
  user: TgUser;
  unrestricted: boolean;
}

/** True when `chat` is the configured chat (numeric id or @username). */
export function isChat(chat: TgChat, configured: string): boolean {
  if (configured.startsWith('@')) return chat.username !== undefined && `@${chat.username}`.toLowerCase() === configured.toLowerCase();
  return String(chat.id) === configured;
}

/**
 * The people who entered the discussion chat in this update: a `chat_member` change from outside
 * the chat to inside it, or a `new_chat_members` service message. Bots are left alone. Both kinds
 * can report the same join; acting twice is harmless (the same restriction again). A join through an
 * approved join request is no joiner here: its eligibility was the approval.
 */
export function joinersOf(update: TgUpdate, chatId: string): Joiner[] {
  const change = update.chat_member;
  if (change && isChat(change.chat, chatId)) {
    // A join the bot approved from a join request was decided by eligibility already.
    if (change.via_join_request === true) return [];
    const entered = !isInChat(change.old_chat_member) && isInChat(change.new_chat_member);
    if (!entered || change.new_chat_member.user.is_bot) return [];
    return [{ user: change.new_chat_member.user, unrestricted: change.new_chat_member.status === 'member' }];
  }
  const message = update.message;
  if (message?.new_chat_members && isChat(message.chat, chatId)) {
    return message.new_chat_members.filter((u) => !u.is_bot).map((user) => ({ user, unrestricted: false }));
  }
  return [];
}

/** How JoinGate reaches the platform, the gateway and its store. */
export interface JoinGateOptions {
  platform: PlatformClient;
  /** BOT_DISCUSSION_CHAT_ID. */
  chatId: string;
  resolve: ResolveEligibility;
  /** The pending lookups, durable in the bot's SQLite file. */
  retries: ChatGateRetries;
  /** Each joiner's lookup schedule after a failure (initial, x1.6, capped, ±20 %). */
  retry: BackoffOptions;
  logger: Logger;
  /** Lookups retried at once; default 8. */
  concurrency?: number;
  /** Unix milliseconds; injectable for tests. */
  now?: () => number;
}

/** The longest the retry loop sleeps without looking at the store again. */
const IDLE_RECHECK_MS = 60_000;

/**
 * Gates users joining the discussion chat by their chat eligibility (ResolveChatEligibility),
 * fail-closed like the pre-checkout. Eligible users may write (a plain member already can, so no
 * call is made); everyone else (unregistered, suspended, chat-muted) is made read-only. When the
 * lookup fails (gateway or backend down, timeout, an error answer) the joiner is made read-only
 * too and the lookup is retried on the joiner's own backoff, durably (a pending lookup outlives a
 * restart and is due at once on start), until one answers: then write access is granted to an
 * eligible joiner still in the chat, and the restriction stays on anyone else. Each failure is
 * logged with the joiner's failure count and the number held read-only. One joiner's lookups and
 * changes run one at a time, so a retry never overtakes a later join.
 */
export class JoinGate {
  private readonly stopping = new AbortController();
  private wake = new AbortController();
  private running: Promise<void> | undefined;
  private readonly guard = new Backoff({ initialMs: 1_000, maxMs: 30_000 });
  private readonly chains = new Map<number, Promise<void>>();
  private readonly now: () => number;

  constructor(private readonly options: JoinGateOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Starts retrying the pending lookups, those an earlier process left first. */
  start(): void {
    this.running ??= this.loop();
  }

  /** Ends the retry loop once the lookups in flight have settled. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.wake.abort();
    await this.running;
  }

  /** Joiners held read-only until their lookup answers. */
  get pending(): number {
    return this.options.retries.count();
  }

  /** Gates `joiner` (from a chat_member change or a new_chat_members message). */
  admit(joiner: Joiner): Promise<void> {
    return this.serial(joiner.user.id, () => this.admitNow(joiner));
  }

  private async admitNow(joiner: Joiner): Promise<void> {
    const { platform, chatId, retries, logger } = this.options;
    const userId = joiner.user.id;
    let eligible: boolean;
    try {
      ({ eligible } = await this.options.resolve(String(userId)));
    } catch (err: unknown) {
      await this.holdBack(userId, 1, false, err);
      return;
    }
    retries.remove(userId);
    if (eligible && joiner.unrestricted) return;
    await setWriteAccess(platform, chatId, userId, eligible);
    logger.info({ platformUserId: userId, eligible }, 'discussion chat write access set on join');
  }

  /**
   * Records the failed lookup (durably, before any platform call), then makes the joiner
   * read-only unless that already happened; a failed restriction is tried again with the next lookup.
   */
  private async holdBack(userId: number, failures: number, restricted: boolean, err: unknown): Promise<void> {
    const { platform, chatId, retries, retry, logger } = this.options;
    const retryInMs = delayAfter(failures, retry);
    const nextAttemptAt = this.now() + retryInMs;
    retries.put({ userId, failures, nextAttemptAt, restricted });
    let held = restricted;
    if (!held) {
      try {
        await setWriteAccess(platform, chatId, userId, false);
        held = true;
        retries.put({ userId, failures, nextAttemptAt, restricted: true });
      } catch (restrictErr: unknown) {
        logger.error(
          { platformUserId: userId, err: errorText(restrictErr) },
          'could not restrict a joiner whose chat eligibility is unresolved; tried again with the next lookup',
        );
      }
    }
    logger.warn(
      { platformUserId: userId, err: errorText(err), failures, retryInMs, restricted: held, pending: retries.count() },
      'chat eligibility unresolved; joiner held read-only until it resolves (fail-closed)',
    );
    this.wake.abort();
  }

  /** One due lookup; skipped when a join meanwhile resolved or rescheduled it. */
  private async retryNow(due: ChatGateRetry): Promise<void> {
    const { platform, chatId, retries, retry, logger } = this.options;
    const current = retries.get(due.userId);
    if (current === undefined || current.nextAttemptAt > this.now()) return;
    const { userId, failures, restricted } = current;
    let eligible: boolean;
    try {
      ({ eligible } = await this.options.resolve(String(userId)));
    } catch (err: unknown) {
      await this.holdBack(userId, failures + 1, restricted, err);
      return;
    }
    try {
      const standing = await standingIn(platform, chatId, userId);
      if (standing === 'member') await setWriteAccess(platform, chatId, userId, eligible);
      retries.remove(userId);
      logger.info({ platformUserId: userId, eligible, standing, failures }, 'chat eligibility resolved after a retry; write access set');
    } catch (err: unknown) {
      const retryInMs = delayAfter(failures + 1, retry);
      retries.put({ userId, failures: failures + 1, nextAttemptAt: this.now() + retryInMs, restricted });
      logger.warn(
        { platformUserId: userId, eligible, err: errorText(err), retryInMs },
        'chat eligibility resolved but write access not set; tried again later',
      );
    }
  }

  private async loop(): Promise<void> {
    const { retries, logger } = this.options;
    const limit = Math.max(1, this.options.concurrency ?? 8);
    try {
      retries.makeAllDue();
    } catch (err: unknown) {
      logger.error({ err: errorText(err) }, 'could not make left-over chat eligibility lookups due; they wait for their own backoff');
    }
    while (!this.stopping.signal.aborted) {
      try {
        // Renewed before reading the store: a failure recorded after the read wakes the wait below.
        this.wake = new AbortController();
        const due = retries.due(this.now(), limit);
        if (due.length > 0) {
          await Promise.all(due.map((row) => this.serial(row.userId, () => this.retryNow(row))));
          continue;
        }
        const next = retries.nextDueAt();
        const waitMs = next === undefined ? IDLE_RECHECK_MS : Math.min(IDLE_RECHECK_MS, Math.max(0, next - this.now()));
        await sleep(waitMs, AbortSignal.any([this.stopping.signal, this.wake.signal]));
        this.guard.reset();
      } catch (err: unknown) {
        const delayMs = this.guard.next();
        logger.error({ err: errorText(err), delayMs }, 'chat eligibility retry pass failed unexpectedly; going on after a pause');
        await sleep(delayMs, this.stopping.signal);
      }
    }
  }

  /** Runs `work` after every earlier piece of work for `userId` has settled. */
  private serial(userId: number, work: () => Promise<void>): Promise<void> {
    const run = (this.chains.get(userId) ?? Promise.resolve()).then(work, work);
    this.chains.set(userId, run);
    const forget = (): void => {
      if (this.chains.get(userId) === run) this.chains.delete(userId);
    };
    void run.then(forget, forget);
    return run;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
