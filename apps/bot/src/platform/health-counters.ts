/** The levels Health carries as they are now (not deltas): the payment outbox's failing rows. */
export interface HealthLevels {
  /** Outbox rows whose ForwardPayment failed at least once and that still wait (Health field 6, additive). */
  outboxFailingRows: bigint;
  /** Age in seconds of the oldest of them, 0 when none (Health field 7, additive). */
  outboxOldestFailingAgeSeconds: bigint;
}

/** One chat-command series' delta as Health carries it (additive field 10). */
export interface ChatCommandDelta {
  input: string;
  outcome: string;
  count: bigint;
}

/** Deltas of platform-API outcomes and dead letters since the previous report, plus the levels, as Health carries them. */
export interface HealthDeltas extends HealthLevels {
  connectFailures: bigint;
  apiErrors: bigint;
  rateLimited: bigint;
  lastOkUnix: bigint;
  /** Updates parked as dead letters (Health field 5, additive). */
  deadLetters: bigint;
  /** 409 Conflict answers to the getUpdates long poll (Health field 8, additive). */
  updateConflicts: bigint;
  /** 2xx answers whose body could not be read as a Bot API envelope (Health field 9, additive). */
  platformUnreadableResponses: bigint;
  /** The chat commands since the previous report (Health field 10, additive). */
  chatCommands: ChatCommandDelta[];
}

const NO_LEVELS: HealthLevels = { outboxFailingRows: 0n, outboxOldestFailingAgeSeconds: 0n };

/**
 * Counts platform-API outcomes for the Health report. `take()` hands out the deltas accumulated
 * since the previous take and starts new ones; `lastOkUnix` is a stamp, not a delta, and the
 * levels are read from the source set with `readLevels` at each take (the last levels read stay
 * when the source answers undefined, e.g. its file could not be read; zero without a source).
 */
export class HealthCounters {
  private connectFailures = 0n;
  private apiErrors = 0n;
  private rateLimited = 0n;
  private unreadable = 0n;
  private deadLettered = 0n;
  private updateConflicts = 0n;
  private lastOk = 0n;
  private levels: HealthLevels = NO_LEVELS;
  private levelSource: (() => HealthLevels | undefined) | undefined;
  private chatSource: (() => ChatCommandDelta[]) | undefined;

  constructor(private readonly nowUnix: () => number = () => Math.floor(Date.now() / 1000)) {}

  stampOk(): void {
    this.lastOk = BigInt(this.nowUnix());
  }
  connectFailure(): void {
    this.connectFailures += 1n;
  }
  apiError(): void {
    this.apiErrors += 1n;
  }
  rateLimit(): void {
    this.rateLimited += 1n;
  }
  /** A 2xx whose body is not a usable Bot API envelope (it stamped liveness already). */
  unreadableResponse(): void {
    this.unreadable += 1n;
  }
  deadLetter(): void {
    this.deadLettered += 1n;
  }
  updateConflict(): void {
    this.updateConflicts += 1n;
  }
  get lastOkUnix(): bigint {
    return this.lastOk;
  }

  /** Where each report reads the levels from (the payment outbox of the bot that owns updates). */
  readLevels(source: () => HealthLevels | undefined): void {
    this.levelSource = source;
  }

  /** Where each report takes the chat-command deltas from (the chat commands of the bot that owns updates). */
  readChatCommands(source: () => ChatCommandDelta[]): void {
    this.chatSource = source;
  }

  take(): HealthDeltas {
    this.levels = this.levelSource?.() ?? this.levels;
    const deltas = {
      connectFailures: this.connectFailures,
      apiErrors: this.apiErrors,
      rateLimited: this.rateLimited,
      lastOkUnix: this.lastOk,
      deadLetters: this.deadLettered,
      updateConflicts: this.updateConflicts,
      platformUnreadableResponses: this.unreadable,
      chatCommands: this.chatSource?.() ?? [],
      ...this.levels,
    };
    this.connectFailures = 0n;
    this.deadLettered = 0n;
    this.updateConflicts = 0n;
    this.apiErrors = 0n;
    this.rateLimited = 0n;
    this.unreadable = 0n;
    return deltas;
  }
}
