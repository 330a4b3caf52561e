import http from 'node:http';
import https from 'node:https';
import type { Logger } from '@wordgame/logging';
import { nowIso } from './state.js';

/** The events YooKassa notifies for the objects the emulator has. */
export type NotificationEvent = 'payment.waiting_for_capture' | 'payment.succeeded' | 'payment.canceled' | 'refund.succeeded';

/** Every {@link NotificationEvent}. */
export const NOTIFICATION_EVENTS = [
  'payment.waiting_for_capture',
  'payment.succeeded',
  'payment.canceled',
  'refund.succeeded',
] as const satisfies readonly NotificationEvent[];

/** One POST to the webhook: when, and the HTTP status the receiver answered (null: no answer). */
export interface DeliveryAttempt {
  at: string;
  status: number | null;
  error?: string;
}

/** A notification and its delivery attempts, as the control API reports it. */
export interface Delivery {
  /** "n1", "n2", ... in order of creation. */
  id: string;
  /** The event, or null for a forged body that names none. */
  event: string | null;
  objectId: string | null;
  shopId: string | null;
  /** Where it was (or would be) posted; null when no webhook URL is configured. */
  url: string | null;
  /** Sent through the control API with an arbitrary body. */
  forged: boolean;
  /** Not sent because automatic notifications were off ("lost"); can be sent later on demand. */
  suppressed: boolean;
  /** The exact body posted. */
  body: string;
  attempts: DeliveryAttempt[];
}

/** Settings the notifier starts with and returns to on reset. */
export interface NotifierOptions {
  logger: Logger;
  autoNotify: boolean;
  webhookUrl: string | null;
  shopWebhookUrls: ReadonlyMap<string, string>;
  timeoutMs: number;
}

/**
 * Posts YooKassa notifications (`{"type":"notification","event","object"}`) to the shop's webhook
 * URL, else the global one, and records every attempt with the status the receiver answered.
 * YooKassa would retry for a day; the emulator makes one attempt per send and leaves redelivery to
 * the control API, so tests decide exactly what arrives. Bodies are never logged (they hold the
 * masked card).
 */
export class Notifier {
  autoNotify: boolean;
  #globalUrl: string | null;
  readonly #shopUrls: Map<string, string>;
  #deliveries: Delivery[] = [];
  #sequence = 0;
  readonly #inFlight = new Set<Promise<void>>();
  #abort = new AbortController();

  constructor(private readonly options: NotifierOptions) {
    this.autoNotify = options.autoNotify;
    this.#globalUrl = options.webhookUrl;
    this.#shopUrls = new Map(options.shopWebhookUrls);
  }

  /** Sets the global webhook URL, or one shop's when `shopId` is given; null removes it. */
  setWebhookUrl(url: string | null, shopId?: string): void {
    if (shopId === undefined) this.#globalUrl = url;
    else if (url === null) this.#shopUrls.delete(shopId);
    else this.#shopUrls.set(shopId, url);
  }

  /** The URL a shop's notifications go to, or null. */
  webhookUrlFor(shopId: string | null): string | null {
    return (shopId === null ? undefined : this.#shopUrls.get(shopId)) ?? this.#globalUrl;
  }

  /**
   * Notifies a state change: sends it when automatic notifications are on, else records it as
   * suppressed. Resolves with the record once the attempt finished; never rejects.
   */
  notifyChange(shopId: string, event: NotificationEvent, object: unknown): Promise<Delivery> {
    const body = JSON.stringify({ type: 'notification', event, object });
    const objectId = idOf(object);
    const delivery = this.#record({ event, objectId, shopId, body, forged: false, suppressed: !this.autoNotify });
    if (delivery.suppressed) {
      this.options.logger.debug({ event, objectId }, 'notification suppressed (automatic notifications off)');
      return Promise.resolve(delivery);
    }
    return this.#attempt(delivery);
  }

  /** Sends a notification on demand (also a forged body); `url` overrides the configured one. */
  send(input: {
    shopId: string | null;
    event: string | null;
    objectId: string | null;
    body: string;
    forged: boolean;
    url?: string;
  }): Promise<Delivery> {
    const delivery = this.#record({ ...input, suppressed: false });
    if (input.url !== undefined) delivery.url = input.url;
    return this.#attempt(delivery);
  }

  /** Posts a recorded notification again (same body); undefined if there is no such record. */
  redeliver(id: string): Promise<Delivery> | undefined {
    const delivery = this.#deliveries.find((d) => d.id === id);
    if (!delivery) return undefined;
    delivery.suppressed = false;
    delivery.url ??= this.webhookUrlFor(delivery.shopId);
    return this.#attempt(delivery);
  }

  /** Copies of every notification since the last reset, oldest first. */
  deliveries(): Delivery[] {
    return this.#deliveries.map((d) => ({ ...d, attempts: d.attempts.map((a) => ({ ...a })) }));
  }

  /** Resolves when no delivery is under way (including ones started while waiting). */
  async flush(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  /** Forgets deliveries and returns to the starting settings (auto flag, URLs). */
  reset(): void {
    this.#deliveries = [];
    this.autoNotify = this.options.autoNotify;
    this.#globalUrl = this.options.webhookUrl;
    this.#shopUrls.clear();
    for (const [shopId, url] of this.options.shopWebhookUrls) this.#shopUrls.set(shopId, url);
  }

  /** Aborts deliveries under way (used by stop). */
  close(): void {
    this.#abort.abort();
    this.#abort = new AbortController();
  }

  #record(input: Omit<Delivery, 'id' | 'url' | 'attempts'>): Delivery {
    this.#sequence += 1;
    const delivery: Delivery = { id: `n${this.#sequence}`, ...input, url: this.webhookUrlFor(input.shopId), attempts: [] };
    this.#deliveries.push(delivery);
    return delivery;
  }

  #attempt(delivery: Delivery): Promise<Delivery> {
    const { url } = delivery;
    const log = this.options.logger;
    if (url === null) {
      log.debug({ event: delivery.event, objectId: delivery.objectId }, 'no webhook URL configured; notification not sent');
      return Promise.resolve(delivery);
    }
    const attempt: DeliveryAttempt = { at: nowIso(), status: null };
    delivery.attempts.push(attempt);
    const work = post(url, delivery.body, this.#abort.signal, this.options.timeoutMs).then(
      (status) => {
        attempt.status = status;
        log.info({ event: delivery.event, objectId: delivery.objectId, status }, 'notification delivered');
      },
      (err: unknown) => {
        attempt.error = err instanceof Error ? err.message : String(err);
        log.warn({ event: delivery.event, objectId: delivery.objectId, error: attempt.error }, 'notification not delivered');
      },
    );
    this.#inFlight.add(work);
    return work.then(() => {
      this.#inFlight.delete(work);
      return delivery;
    });
  }
}

function idOf(object: unknown): string | null {
  if (typeof object !== 'object' || object === null || !('id' in object)) return null;
  return typeof object.id === 'string' ? object.id : null;
}

function post(url: string, body: string, signal: AbortSignal, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const client = target.protocol === 'https:' ? https : http;
    const request = client.request(
      target,
      {
        method: 'POST',
        signal,
        timeout: timeoutMs,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          connection: 'close',
          'user-agent': 'YooKassa provider-emulator',
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}
