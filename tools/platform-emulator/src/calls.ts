import type { Params } from './params.js';

/**
 * One Bot API call as the emulator saw it. `status` is null while the call is still running (a
 * long poll), the HTTP status once answered, and 0 when no answer was sent (dropped by a fault or
 * abandoned by the client). `botId` is null for an unknown token (the token itself is not kept).
 */
export interface CallRecord {
  seq: number;
  at: string;
  method: string;
  botId: number | null;
  params: Params;
  status: number | null;
  ok: boolean | null;
  description?: string;
  faultId?: number;
  outcome?: 'answered' | 'dropped' | 'client_closed';
  durationMs?: number;
}

/** The outcome written into a call record when it finishes. */
export interface CallEnd {
  status: number;
  description?: string;
  faultId?: number;
  outcome: NonNullable<CallRecord['outcome']>;
}

/** Append-only log of Bot API calls in arrival order, for tests to assert on what a bot did. */
export class CallLog {
  private records: CallRecord[] = [];
  private lastSeq = 0;

  /** Records a call as it arrives; call the returned function once it is answered. */
  start(method: string, botId: number | null, params: Params): (end: CallEnd) => void {
    const started = Date.now();
    const record: CallRecord = {
      seq: ++this.lastSeq,
      at: new Date(started).toISOString(),
      method,
      botId,
      params,
      status: null,
      ok: null,
    };
    this.records.push(record);
    return (end) => {
      record.status = end.status;
      record.ok = end.status === 200;
      record.outcome = end.outcome;
      record.durationMs = Date.now() - started;
      if (end.description !== undefined) record.description = end.description;
      if (end.faultId !== undefined) record.faultId = end.faultId;
    };
  }

  /** Copies of the records, optionally only those of one method (case-insensitive). */
  list(method?: string): CallRecord[] {
    const wanted = method?.toLowerCase();
    return this.records.filter((r) => wanted === undefined || r.method.toLowerCase() === wanted).map((r) => ({ ...r }));
  }

  clear(): void {
    this.records = [];
  }
}
