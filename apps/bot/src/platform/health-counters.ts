/** Deltas of platform-API outcomes and dead letters since the previous report, as Health carries them. */
export interface HealthDeltas {
  connectFailures: bigint;
  apiErrors: bigint;
  rateLimited: bigint;
  lastOkUnix: bigint;
  /** Updates and outbox rows parked as dead letters (Health field 5, additive). */
  deadLetters: bigint;
  /** 409 Conflict answers to the getUpdates long poll (Health field 8, additive). */
  updateConflicts: bigint;
}

/**
 * Counts platform-API outcomes for the Health report. `take()` hands out the deltas accumulated
 * since the previous take and starts new ones; `lastOkUnix` is a stamp, not a delta.
 */
export class HealthCounters {
  private connectFailures = 0n;
  private apiErrors = 0n;
  private rateLimited = 0n;
  private deadLettered = 0n;
  private updateConflicts = 0n;
  private lastOk = 0n;

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
  deadLetter(): void {
    this.deadLettered += 1n;
  }
  updateConflict(): void {
    this.updateConflicts += 1n;
  }
  get lastOkUnix(): bigint {
    return this.lastOk;
  }

  take(): HealthDeltas {
    const deltas = {
      connectFailures: this.connectFailures,
      apiErrors: this.apiErrors,
      rateLimited: this.rateLimited,
      lastOkUnix: this.lastOk,
      deadLetters: this.deadLettered,
      updateConflicts: this.updateConflicts,
    };
    this.connectFailures = 0n;
    this.deadLettered = 0n;
    this.updateConflicts = 0n;
    this.apiErrors = 0n;
    this.rateLimited = 0n;
    return deltas;
  }
}
