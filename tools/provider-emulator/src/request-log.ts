import { nowIso } from './state.js';

/**
 * One /v3 request as the control API reports it. Deliberately without headers or bodies: no
 * credentials, card data or receipts end up in the log.
 */
export interface LoggedRequest {
  seq: number;
  at: string;
  method: string;
  path: string;
  /** The shop it authenticated as, null when it did not. */
  shopId: string | null;
  idempotenceKey: string | null;
  /** The status answered; null while held or when the connection was dropped unanswered. */
  status: number | null;
  /** Answered from the idempotence store. */
  replayed: boolean;
  /** The fault that hit it, if any. */
  fault: 'error' | 'timeout' | null;
}

/** The request log, in arrival order; entries are updated in place when a held request answers. */
export class RequestLog {
  #entries: LoggedRequest[] = [];
  #sequence = 0;

  /** Adds an entry (status unknown yet) and returns it for the caller to complete. */
  start(method: string, path: string): LoggedRequest {
    this.#sequence += 1;
    const entry: LoggedRequest = {
      seq: this.#sequence,
      at: nowIso(),
      method,
      path,
      shopId: null,
      idempotenceKey: null,
      status: null,
      replayed: false,
      fault: null,
    };
    this.#entries.push(entry);
    return entry;
  }

  /** Copies of the entries, oldest first. */
  list(): LoggedRequest[] {
    return this.#entries.map((e) => ({ ...e }));
  }

  /** Empties the log; numbering starts again at 1. */
  clear(): void {
    this.#entries = [];
    this.#sequence = 0;
  }
}
