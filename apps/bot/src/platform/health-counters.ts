/** Deltas of platform-API outcomes since the previous report, as Health carries them. */
export interface HealthDeltas {
  connectFailures: bigint;
  apiErrors: bigint;
  rateLimited: bigint;
  lastOkUnix: bigint;
}

/**
 * Counts platform-API outcomes for the Health report. `take()` hands out the deltas accumulated
 * since the previous take and starts new ones; `lastOkUnix` is a stamp, not a delta.
 */
export class HealthCounters {
  private connectFailures = 0n;
  private apiErrors = 0n;
  private rateLimited = 0n;
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
  get lastOkUnix(): bigint {
    return this.lastOk;
  }

  take(): HealthDeltas {
    const deltas = { connectFailures: this.connectFailures, apiErrors: this.apiErrors, rateLimited: this.rateLimited, lastOkUnix: this.lastOk };
    this.connectFailures = 0n;
    this.apiErrors = 0n;
    this.rateLimited = 0n;
    return deltas;
  }
}
