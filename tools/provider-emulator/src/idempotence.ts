import { invalidRequest } from './errors.js';

/** The header YooKassa requires on every POST. */
export const IDEMPOTENCE_HEADER = 'Idempotence-Key';

/** YooKassa's maximum key length. */
export const MAX_IDEMPOTENCE_KEY_LENGTH = 64;

/** A response kept for replay: status and the exact bytes first sent. */
export interface StoredResponse {
  readonly status: number;
  readonly json: string;
}

/**
 * Reads the Idempotence-Key header of a POST. Throws 400 invalid_request naming the header when it
 * is missing, empty or longer than 64 characters, as YooKassa does.
 */
export function requireIdempotenceKey(raw: string | string[] | undefined): string {
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined || key.trim() === '') {
    throw invalidRequest(`${IDEMPOTENCE_HEADER} header is required for POST requests`, IDEMPOTENCE_HEADER);
  }
  if (key.length > MAX_IDEMPOTENCE_KEY_LENGTH) {
    throw invalidRequest(`${IDEMPOTENCE_HEADER} must be at most ${MAX_IDEMPOTENCE_KEY_LENGTH} characters long`, IDEMPOTENCE_HEADER);
  }
  return key;
}

/**
 * What a request "is" for idempotence: method, path and the body's JSON with keys sorted, so
 * whitespace and key order do not count as different parameters but any changed value does.
 */
export function fingerprintOf(method: string, path: string, body: unknown): string {
  return `${method} ${path} ${canonicalJson(body)}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Responses remembered per shop and key. A repeated key with the same fingerprint replays the
 * stored response byte for byte; with another fingerprint it is 400 invalid_request, as YooKassa
 * answers a key reused with other parameters. Only answers below 500 are kept: a 500 means "result
 * unknown" and the client is expected to retry with the same key.
 */
export class IdempotenceStore {
  readonly #byShop = new Map<string, Map<string, { fingerprint: string; response: StoredResponse }>>();

  /** The stored response for this key, null if the key is new; throws if reused with other parameters. */
  lookup(shopId: string, key: string, fingerprint: string): StoredResponse | null {
    const entry = this.#byShop.get(shopId)?.get(key);
    if (!entry) return null;
    if (entry.fingerprint !== fingerprint) {
      throw invalidRequest(
        `Idempotence key duplicated: ${IDEMPOTENCE_HEADER} was already used with other request parameters`,
        IDEMPOTENCE_HEADER,
      );
    }
    return entry.response;
  }

  /** Remembers the answer to a first request (ignored for statuses of 500 and above). */
  remember(shopId: string, key: string, fingerprint: string, response: StoredResponse): void {
    if (response.status >= 500) return;
    let keys = this.#byShop.get(shopId);
    if (!keys) {
      keys = new Map();
      this.#byShop.set(shopId, keys);
    }
    keys.set(key, { fingerprint, response });
  }

  /** Forgets every key. */
  clear(): void {
    this.#byShop.clear();
  }
}
