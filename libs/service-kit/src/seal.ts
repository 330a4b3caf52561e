import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The envelope's format version (its first byte). */
export const SEAL_VERSION = 1;
/** Bytes before the payload: version (1), sent-at ms (8, big-endian), nonce (16), HMAC-SHA256 (32). */
export const SEAL_HEADER_BYTES = 57;
/**
 * How far (ms) a message's sent-at may lie behind or ahead of the receiver's clock: covers transit
 * and modest clock skew between hosts; a copy replayed later than this is stale, and within it the
 * nonce has been seen.
 */
export const SEAL_WINDOW_MS = 30_000;
/** Largest payload sealed or accepted by default: a bot command is at most 1 MiB (the internal port's limit). */
export const SEAL_MAX_PAYLOAD_BYTES = 1_048_576 + 65_536;

const NONCE_BYTES = 16;
const MAC_AT = 1 + 8 + NONCE_BYTES;
const EMPTY = new Uint8Array(0);

/** Why a sealed message was refused; each is a `reason` label of the apps' NATS rejection counters. */
export const SEAL_REJECTIONS = ['malformed', 'oversize', 'version', 'bad_mac', 'stale', 'future', 'replay'] as const;
export type SealRejection = (typeof SEAL_REJECTIONS)[number];

/** What `open` found: the authentic payload, or why the message is refused. */
export type Unsealed = { ok: true; payload: Uint8Array; nonce: Uint8Array; sentAt: number } | { ok: false; reason: SealRejection };

/**
 * The key of one kind of message: HMAC-SHA256 of `purpose` under a shared secret, so one secret
 * keys several kinds and a message of one kind never verifies as another.
 */
export function sealKey(secret: string, purpose: string): Buffer {
  return createHmac('sha256', secret).update(`wordgame nats seal v${SEAL_VERSION}: ${purpose}`).digest();
}

export interface MessageSealOptions {
  /** From {@link sealKey}. */
  key: Uint8Array;
  /** See {@link SEAL_WINDOW_MS}. */
  windowMs?: number;
  /** See {@link SEAL_MAX_PAYLOAD_BYTES}. */
  maxPayloadBytes?: number;
  /** Milliseconds since the epoch (the service's clock). */
  now?: () => number;
}

/**
 * Proof of sender for messages between replicas over NATS, which a NATS subject alone does not
 * give: an envelope of version, sent-at, a random nonce and an HMAC-SHA256 over all of them, the
 * subject, a binding (e.g. the reply subject of a request, or the nonce of the request a reply
 * answers) and the payload. `open` accepts a message only if its MAC verifies, it was sent within
 * the window of now, and its nonce was not accepted before (replay); nonces are remembered only
 * for authentic messages and only while their copies would still be fresh. One instance per kind
 * of message received, as its nonce memory is the replay guard.
 */
export class MessageSeal {
  private readonly key: Uint8Array;
  private readonly windowMs: number;
  private readonly maxPayloadBytes: number;
  private readonly now: () => number;
  /** Accepted nonces (hex) and when each stops mattering (sent-at + window), roughly oldest first. */
  private readonly seen = new Map<string, number>();
  /** The latest time seen: a clock stepping back never revives a forgotten nonce's copies. */
  private latest = 0;

  constructor(options: MessageSealOptions) {
    this.key = options.key;
    this.windowMs = options.windowMs ?? SEAL_WINDOW_MS;
    this.maxPayloadBytes = options.maxPayloadBytes ?? SEAL_MAX_PAYLOAD_BYTES;
    this.now = options.now ?? Date.now;
  }

  /** The envelope of `payload` for `subject`, and its nonce (what a reply binds to). */
  seal(subject: string, payload: Uint8Array, bind: Uint8Array = EMPTY): { bytes: Uint8Array; nonce: Uint8Array } {
    if (payload.byteLength > this.maxPayloadBytes)
      throw new RangeError(`payload of ${payload.byteLength} bytes exceeds ${this.maxPayloadBytes}`);
    const bytes = new Uint8Array(SEAL_HEADER_BYTES + payload.byteLength);
    const view = new DataView(bytes.buffer);
    bytes[0] = SEAL_VERSION;
    view.setBigUint64(1, BigInt(Math.floor(this.now())));
    const nonce = randomBytes(NONCE_BYTES);
    bytes.set(nonce, 9);
    bytes.set(payload, SEAL_HEADER_BYTES);
    bytes.set(this.mac(bytes, subject, bind), MAC_AT);
    return { bytes, nonce: new Uint8Array(nonce) };
  }

  /** Verifies an envelope received on `subject`; the payload only when authentic, fresh and new. */
  open(subject: string, bytes: Uint8Array, bind: Uint8Array = EMPTY): Unsealed {
    if (bytes.byteLength < SEAL_HEADER_BYTES) return { ok: false, reason: 'malformed' };
    if (bytes.byteLength - SEAL_HEADER_BYTES > this.maxPayloadBytes) return { ok: false, reason: 'oversize' };
    if (bytes[0] !== SEAL_VERSION) return { ok: false, reason: 'version' };
    const expected = this.mac(bytes, subject, bind);
    if (!timingSafeEqual(expected, bytes.subarray(MAC_AT, SEAL_HEADER_BYTES))) return { ok: false, reason: 'bad_mac' };
    const sentAt = Number(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(1));
    const now = Math.max(this.now(), this.latest);
    this.latest = now;
    if (sentAt < now - this.windowMs) return { ok: false, reason: 'stale' };
    if (sentAt > now + this.windowMs) return { ok: false, reason: 'future' };
    this.forget(now);
    const nonce = bytes.slice(9, MAC_AT);
    const id = Buffer.from(nonce).toString('hex');
    if (this.seen.has(id)) return { ok: false, reason: 'replay' };
    this.seen.set(id, sentAt + this.windowMs);
    return { ok: true, payload: bytes.subarray(SEAL_HEADER_BYTES), nonce, sentAt };
  }

  /** Nonces remembered now (tests; bounded by the accepted message rate times the window). */
  get remembered(): number {
    return this.seen.size;
  }

  /** Drops nonces whose copies are stale by now (so the window check refuses them instead). */
  private forget(now: number): void {
    for (const [id, until] of this.seen) {
      if (until >= now) break;
      this.seen.delete(id);
    }
  }

  /** HMAC over the header without its MAC, the subject and the binding (each length-prefixed), and the payload. */
  private mac(bytes: Uint8Array, subject: string, bind: Uint8Array): Buffer {
    const subjectBytes = Buffer.from(subject, 'utf8');
    const lengths = Buffer.alloc(8);
    lengths.writeUInt32BE(subjectBytes.byteLength, 0);
    lengths.writeUInt32BE(bind.byteLength, 4);
    return createHmac('sha256', this.key)
      .update(bytes.subarray(0, MAC_AT))
      .update(lengths)
      .update(subjectBytes)
      .update(bind)
      .update(bytes.subarray(SEAL_HEADER_BYTES))
      .digest();
  }
}
