import type { ServerResponse } from 'node:http';
import { ApiError, errorBody } from './errors.js';
import { sendHtml, sendJson, sendRaw } from './http.js';

/**
 * A fault to inject into the next `times` Bot API calls of `method` (any method when absent).
 * `delayMs` holds the call first; then `drop` destroys the socket without an answer, or `status`
 * answers instead of the method: 429 as Telegram's flood error with `retry_after` (and a
 * Retry-After header), 5xx as the HTML page a proxy in front of Telegram gives, other codes as a
 * Telegram JSON error with `description` (prefixed with the status text, "Bad Request: ...",
 * unless it already is). `body` answers 2xx (`status`, default 200) with exactly that text instead of
 * the method, for a platform or proxy that says "OK" with something that is not a Bot API envelope
 * (HTML, `{}`, an empty body, a `result` of the wrong shape). A delay alone lets the call proceed
 * normally.
 */
export interface FaultSpec {
  method?: string;
  status?: number;
  /** A raw 2xx answer body (needs `status` 200-299 or none). */
  body?: string;
  /** Content type of a `body` answer; default application/json. */
  contentType?: string;
  retryAfter?: number;
  description?: string;
  delayMs?: number;
  drop?: boolean;
  times?: number;
}

/** A registered fault and how many calls it still applies to. */
export interface FaultRecord extends FaultSpec {
  id: number;
  remaining: number;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** The registered faults, consumed first-registered-first as matching calls arrive. */
export class FaultTable {
  private faults: FaultRecord[] = [];
  private lastId = 0;

  /** Registers a fault; throws RangeError for a spec that would do nothing or cannot be sent. */
  add(spec: FaultSpec): FaultRecord {
    const times = spec.times ?? 1;
    if (!Number.isInteger(times) || times < 1) throw new RangeError('times must be a positive integer');
    if (spec.status === undefined && spec.delayMs === undefined && spec.drop !== true && spec.body === undefined) {
      throw new RangeError('a fault needs status, body, delayMs or drop');
    }
    if (spec.body !== undefined) {
      if (spec.status !== undefined && (!Number.isInteger(spec.status) || spec.status < 200 || spec.status > 299)) {
        throw new RangeError('a body fault answers 2xx: status must be 200-299');
      }
    } else if (spec.status !== undefined && (!Number.isInteger(spec.status) || spec.status < 400 || spec.status > 599)) {
      throw new RangeError('status must be an HTTP error status 400-599 (a 2xx needs a body)');
    }
    const base = spec.body === undefined ? spec : { ...spec, status: spec.status ?? 200 };
    const record: FaultRecord = { ...base, times, id: ++this.lastId, remaining: times };
    this.faults.push(record);
    return record;
  }

  /** Takes one use of the first fault matching `method` (case-insensitive), if any. */
  take(method: string): FaultRecord | undefined {
    const wanted = method.toLowerCase();
    const fault = this.faults.find((f) => f.method === undefined || f.method.toLowerCase() === wanted);
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.faults = this.faults.filter((f) => f !== fault);
    return { ...fault };
  }

  list(): FaultRecord[] {
    return this.faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.faults = [];
  }
}

/**
 * Writes the answer of a fault that has a `status`; returns the status and description sent, and
 * the body when it is a Telegram JSON envelope (not for the HTML and raw answers).
 */
export function sendFault(
  res: ServerResponse,
  fault: FaultRecord & { status: number },
): { status: number; description: string; envelope?: Record<string, unknown> } {
  if (fault.body !== undefined) {
    sendRaw(res, fault.status, fault.body, fault.contentType ?? 'application/json');
    return { status: fault.status, description: `raw ${fault.status} body (${Buffer.byteLength(fault.body)} bytes)` };
  }
  const text = STATUS_TEXT[fault.status] ?? 'Error';
  if (fault.status === 429) {
    const retryAfter = fault.retryAfter ?? 1;
    const err = new ApiError(429, `Too Many Requests: retry after ${retryAfter}`, retryAfter);
    const envelope = errorBody(err);
    sendJson(res, 429, envelope, { 'retry-after': String(retryAfter) });
    return { status: 429, description: err.description, envelope };
  }
  if (fault.status >= 500) {
    const title = `${fault.status} ${text}`;
    sendHtml(res, fault.status, `<html><body><h1>${title}</h1></body></html>`);
    return { status: fault.status, description: title };
  }
  const given = fault.description;
  const description = given === undefined ? text : given.startsWith(text) ? given : `${text}: ${given}`;
  const envelope = errorBody(new ApiError(fault.status, description));
  sendJson(res, fault.status, envelope);
  return { status: fault.status, description, envelope };
}
