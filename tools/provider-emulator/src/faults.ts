import { ControlError, type ErrorStatus } from './errors.js';

/** Which /v3 requests a fault hits: an HTTP method and/or a path prefix (both optional). */
export interface FaultMatch {
  method?: string;
  pathPrefix?: string;
}

/**
 * A fault to inject into /v3 requests.
 * - `status: 500` (or 400/401/403/404/429): answer with that YooKassa error instead.
 * - `status: 'timeout'`: hold the request without answering, for `delayMs` (then answer normally)
 *   or, without `delayMs`, until the emulator stops or held requests are released (the connection
 *   is then destroyed, never answered).
 * `applied: true` carries the operation out anyway (a payment is created, the idempotence key
 * stored) although the client sees the error or no answer: YooKassa's "result unknown".
 * `times` limits how many requests it hits; without it, every match until cleared.
 */
export type FaultSpec = FaultMatch & { times?: number; applied?: boolean } & (
    | { status: ErrorStatus }
    | { status: 'timeout'; delayMs?: number }
  );

/** An installed fault with its id and how many more requests it will hit (null: unlimited). */
export type Fault = FaultSpec & { id: string; remaining: number | null };

/** Installed faults, matched in the order they were added; the first match is used up by one hit. */
export class FaultTable {
  #faults: Fault[] = [];
  #sequence = 0;

  /** Installs a fault and returns it with its id. */
  add(spec: FaultSpec): Fault {
    if (spec.times !== undefined && (!Number.isInteger(spec.times) || spec.times < 1)) {
      throw new ControlError(400, 'times must be a whole number of at least 1');
    }
    if (spec.status === 'timeout' && spec.delayMs !== undefined && !(Number.isInteger(spec.delayMs) && spec.delayMs >= 0)) {
      throw new ControlError(400, 'delayMs must be a whole number of milliseconds');
    }
    this.#sequence += 1;
    const fault: Fault = { ...spec, id: `f${this.#sequence}`, remaining: spec.times ?? null };
    this.#faults.push(fault);
    return { ...fault };
  }

  /** The first fault matching this request, counting the hit; null when none applies. */
  take(method: string, path: string): Fault | null {
    const fault = this.#faults.find(
      (f) =>
        (f.method === undefined || f.method.toUpperCase() === method.toUpperCase()) &&
        (f.pathPrefix === undefined || path.startsWith(f.pathPrefix)),
    );
    if (!fault) return null;
    if (fault.remaining !== null) {
      fault.remaining -= 1;
      if (fault.remaining <= 0) this.#faults = this.#faults.filter((f) => f !== fault);
    }
    return { ...fault };
  }

  /** Copies of the installed faults. */
  list(): Fault[] {
    return this.#faults.map((f) => ({ ...f }));
  }

  /** Removes every fault. */
  clear(): void {
    this.#faults = [];
  }
}
