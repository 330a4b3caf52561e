import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Logger } from '@wordgame/logging';
import { z } from 'zod';
import type { HealthCounters } from './health-counters.js';
import { RESULT_SHAPES } from './shapes.js';
import type { BotMethod, MethodParams, ReadResults } from './types.js';

/**
 * How a platform-API call ended when it did not succeed. `malformed`: a 2xx whose body is not a
 * Bot API envelope `{ok: true, result}` with a result of the shape the method needs (it still
 * stamped liveness: the platform, or something in front of it, answered).
 */
export type PlatformFailureKind = 'transport' | 'server' | 'rate_limited' | 'client' | 'malformed';

/** A failed platform-API call: 4xx (`client`, with the platform's description), 429, 5xx, transport or a malformed 2xx. */
export class PlatformError extends Error {
  override readonly name = 'PlatformError';
  constructor(
    readonly kind: PlatformFailureKind,
    readonly method: string,
    readonly status: number | undefined,
    readonly description: string,
  ) {
    super(`${method}: ${status ?? 'transport'} ${description}`);
  }
}

export interface PlatformClientOptions {
  apiRoot: string;
  token: string;
  counters: HealthCounters;
  logger: Logger;
  /** Upper bound on an honoured Retry-After. */
  maxRetryAfterMs?: number;
  /** Per-call timeout for ordinary calls; a long poll adds its own `timeout` seconds. */
  requestTimeoutMs?: number;
}

/** The arguments after the method name: its published parameters (optional when it takes none) and the call options. */
export type CallArgs<M extends BotMethod> =
  object extends MethodParams<M> ? [params?: MethodParams<M>, opts?: CallOptions] : [params: MethodParams<M>, opts?: CallOptions];

/** Per-call options of PlatformClient.call. */
export interface CallOptions {
  /** This call is the getUpdates long poll (its failures count as connect_failures). */
  longPoll?: boolean;
  signal?: AbortSignal;
  /** Extra time to allow beyond requestTimeoutMs (the long poll's own timeout). */
  extraTimeoutMs?: number;
}

/** A platform answer as read off the wire: `body` is undefined when it is not JSON or was cut short. */
interface Answer {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/**
 * The platform agent's settings: `fifo` takes the connection idle longest, so every connection a
 * burst opened keeps being used and none ages out at the server's keep-alive timeout (whose
 * `Keep-Alive: timeout` hint the agent honours) only to be opened again by the next burst.
 */
const KEEP_ALIVE = { keepAlive: true, scheduling: 'fifo' } as const;

/** The Bot API's success envelope; a missing `result` is malformed. */
const okEnvelope = z.object({ ok: z.literal(true), result: z.unknown().refine((r) => r !== undefined, 'result is missing') });

/**
 * The envelope around each result shape, made once per shape: zod compiles a new schema's parser on
 * its first parse, so extending the envelope on every call compiled code on every call.
 */
const envelopes = new WeakMap<z.ZodType, z.ZodType<{ result: unknown }>>();
function envelopeOf(result: z.ZodType): z.ZodType<{ result: unknown }> {
  let envelope = envelopes.get(result);
  if (!envelope) {
    envelope = okEnvelope.extend({ result });
    envelopes.set(result, envelope);
  }
  return envelope;
}

/**
 * The bot's one platform-API client: every call to the chat platform goes through `call()`, which
 * feeds the Health counters by the spec: any 2xx stamps liveness; a transport error or 5xx counts
 * as a connect_failure on the long poll and as an api_error elsewhere; a 429 counts as rate_limited
 * and pauses every further call for its Retry-After, bounded; a 409 on the long poll counts as an
 * update conflict (Health field 8: another process polls with this token); other 4xx are ordinary outcomes
 * counted nowhere. A 2xx is returned to the caller only as the envelope `{ok: true, result}` whose
 * result has the shape the caller asks for: anything else (HTML from a proxy, `{}`, an empty or cut
 * body, a result of the wrong type) has stamped liveness like every 2xx, is counted only as an
 * unreadable response (Health's additive field 9, so an operator still sees a proxy answering 200
 * with HTML) and fails the call as `malformed`, which its caller retries with its own backoff. The
 * token never appears in logs or errors.
 */
export class PlatformClient {
  private pausedUntil = 0;
  /** Kept-alive connections to the platform, reused call after call (the long poll holds one, each concurrent call another). */
  private readonly agent: HttpAgent;
  private readonly send: typeof httpRequest;
  private readonly base: URL;
  private opened = 0;

  constructor(private readonly options: PlatformClientOptions) {
    this.base = new URL(options.apiRoot.endsWith('/') ? options.apiRoot : `${options.apiRoot}/`);
    const tls = this.base.protocol === 'https:';
    this.agent = tls ? new HttpsAgent(KEEP_ALIVE) : new HttpAgent(KEEP_ALIVE);
    this.send = tls ? httpsRequest : httpRequest;
  }

  /** How many TCP connections to the platform this client has opened (a reused one is not counted again). */
  get connectionsOpened(): number {
    return this.opened;
  }

  /** Closes the kept-alive connections (a call after it opens new ones). */
  close(): void {
    this.agent.destroy();
  }

  /**
   * Calls `method` with its published parameters (JSON) and returns its `result`, checked against
   * the method's validator (RESULT_SHAPES), or throws PlatformError.
   */
  async call<M extends BotMethod>(method: M, ...args: CallArgs<M>): Promise<ReadResults[M]> {
    const [params = {}, opts = {}] = args;
    await this.waitOutPause(opts.signal);
    const { counters } = this.options;
    const timeout = AbortSignal.timeout((this.options.requestTimeoutMs ?? 15_000) + (opts.extraTimeoutMs ?? 0));
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    let res: Answer;
    try {
      res = await this.post(`bot${this.options.token}/${method}`, JSON.stringify(params), signal);
    } catch (err: unknown) {
      if (opts.signal?.aborted) throw err;
      if (opts.longPoll) counters.connectFailure();
      else counters.apiError();
      throw new PlatformError('transport', method, undefined, err instanceof Error ? err.message : 'transport failure');
    }
    const body = res.body;
    const envelope = (body ?? {}) as { ok?: unknown; result?: unknown; description?: unknown; parameters?: { retry_after?: unknown } };
    const description = typeof envelope.description === 'string' ? envelope.description : res.statusText;
    if (res.status >= 200 && res.status < 300) {
      counters.stampOk();
      const accepted = envelopeOf(RESULT_SHAPES[method]).safeParse(body);
      if (!accepted.success) {
        if (opts.signal?.aborted) throw new PlatformError('transport', method, res.status, 'aborted while reading the body');
        counters.unreadableResponse();
        const problem = accepted.error.issues[0];
        const why = `not a Bot API envelope: ${problem ? `${problem.path.join('.') || 'body'} ${problem.message}` : 'invalid'}`;
        this.options.logger.warn(
          { method, status: res.status, contentType: res.headers['content-type'], why },
          'platform answered 2xx with a body the bot cannot read; counted as unreadable, the call failed',
        );
        throw new PlatformError('malformed', method, res.status, why);
      }
      return accepted.data.result as ReadResults[M];
    }
    if (res.status === 429) {
      counters.rateLimit();
      const seconds = Number(envelope.parameters?.retry_after ?? res.headers['retry-after'] ?? 1);
      this.pause(Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000);
      throw new PlatformError('rate_limited', method, 429, description);
    }
    if (res.status === 409 && opts.longPoll) counters.updateConflict();
    if (res.status >= 500) {
      if (opts.longPoll) counters.connectFailure();
      else counters.apiError();
      throw new PlatformError('server', method, res.status, description);
    }
    throw new PlatformError('client', method, res.status, description);
  }

  /**
   * POSTs `payload` to `path` under the API root on a kept-alive connection. Rejects only when no
   * answer came (connect, reset or abort before the status line); a body that is not JSON, or is
   * cut short or aborted after the status line, resolves with `body` undefined, as a 2xx the caller
   * cannot read.
   */
  private post(path: string, payload: string, signal: AbortSignal): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason as Error);
        return;
      }
      // The signal is held here, not given to http.request: node leaves that listener on a finished
      // request, and an abort after the answer then destroys the kept-alive socket in its next use.
      const onAbort = () => req.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      const settle = () => signal.removeEventListener('abort', onAbort);
      const req = this.send(
        new URL(`${this.base.href}${path}`),
        {
          method: 'POST',
          agent: this.agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let ended = false;
          const answer = (body: unknown) => {
            settle();
            resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, body });
          };
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            ended = true;
            answer(parseJson(Buffer.concat(chunks).toString('utf8')));
          });
          res.on('error', () => undefined);
          res.on('close', () => {
            if (!ended) answer(undefined);
          });
        },
      );
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('socket', () => {
        if (!req.reusedSocket) this.opened += 1;
      });
      req.on('error', (err) => {
        settle();
        reject(err);
      });
      req.end(payload);
    });
  }

  /** Milliseconds left of the shared 429 pause (0 when calls may go). */
  pauseLeftMs(): number {
    return Math.max(0, this.pausedUntil - Date.now());
  }

  private pause(ms: number): void {
    const bounded = Math.min(ms, this.options.maxRetryAfterMs ?? 60_000);
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + bounded);
    this.options.logger.warn({ pauseMs: bounded }, 'platform rate limit: pausing calls');
  }

  private async waitOutPause(signal?: AbortSignal): Promise<void> {
    for (let left = this.pauseLeftMs(); left > 0; left = this.pauseLeftMs()) {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, left);
        signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(t);
            reject(signal.reason as Error);
          },
          { once: true },
        );
      });
    }
  }
}

/** The JSON value of `text`, or undefined when it is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
