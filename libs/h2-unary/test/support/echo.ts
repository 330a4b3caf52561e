import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { create, toBinary } from '@bufbuild/protobuf';
import { StringValueSchema } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, type HandlerContext, type Interceptor } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { backendApi } from '@wordgame/contracts';
import { serveStreams, unaryServers, type UnaryServerOptions } from '../../src/index.js';

/** The service both servers run: SystemService.Check, whose request body names what to do. */
export const service = backendApi.SystemService;
export const READ_MAX_BYTES = 64 * 1024;

/** What the handlers saw (cancellation reasons, interceptor runs), by server. */
export interface Seen {
  aborted: Code[];
  intercepted: number;
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const bytes = (s: string) => new TextEncoder().encode(s);

/**
 * The implementation, driven by the request body: `ok:<x>` answers `<x>` with a header and a
 * trailer (echoing `x-in`), `big` answers 2 KiB, `err:<code>` fails with that code and metadata,
 * `details` fails with an error detail, `throw` fails with a plain Error, `wait` waits for the
 * signal and fails with its reason, `sleep:<ms>` answers `slept <the deadline header it saw>` after
 * `<ms>` unless the signal ends it first.
 */
function impl(seen: Seen) {
  return {
    async check(req: { body: Uint8Array }, ctx: HandlerContext) {
      const command = text(req.body);
      ctx.responseHeader.set('x-h', `h ${ctx.requestHeader.get('x-in') ?? '-'}`);
      ctx.responseTrailer.set('x-t', 't');
      if (command.startsWith('ok:')) return { body: bytes(command.slice(3)) };
      if (command === 'big') return { body: new Uint8Array(2048).fill(65) };
      if (command.startsWith('err:'))
        throw new ConnectError(`failed with ${command.slice(4)}: 100% é`, Number(command.slice(4)), { 'x-meta': 'm' });
      if (command === 'details') {
        throw new ConnectError('with details', Code.FailedPrecondition, undefined, [
          { desc: StringValueSchema, value: { value: 'the detail' } },
        ]);
      }
      if (command === 'throw') throw new Error('not a ConnectError');
      if (command.startsWith('sleep:')) {
        // Answers after the given ms unless the call's deadline (or the caller) ends it first.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Number(command.slice(6)));
          ctx.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
        });
        if (ctx.signal.aborted) throw ctx.signal.reason;
        return { body: bytes(`slept ${ctx.requestHeader.get('grpc-timeout') ?? ctx.requestHeader.get('connect-timeout-ms') ?? '-'}`) };
      }
      if (command === 'wait') {
        if (!ctx.signal.aborted)
          await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
        seen.aborted.push(ConnectError.from(ctx.signal.reason).code);
        throw ctx.signal.reason;
      }
      return { body: new Uint8Array() };
    },
  };
}

/** An interceptor both servers run: counts the call and adds a response header. */
function counting(seen: Seen): Interceptor {
  return (next) => async (req) => {
    seen.intercepted++;
    const res = await next(req);
    if (!res.stream) res.header.set('x-intercepted', '1');
    return res;
  };
}

/** A listening server and what its handlers saw. */
export interface Running {
  url: string;
  seen: Seen;
  /** Paths of the calls the fast path took (the fast server only). */
  taken: string[];
  close(): Promise<void>;
}

async function listen(server: http2.Http2Server, seen: Seen, taken: string[]): Promise<Running> {
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s: http2.ServerHttp2Session) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    taken,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function options(seen: Seen): UnaryServerOptions {
  return { services: [{ service, impl: impl(seen) }], interceptors: [counting(seen)], readMaxBytes: READ_MAX_BYTES };
}

/** A plain connect-node server (the reference). */
export function startConnectNode(): Promise<Running> {
  const seen: Seen = { aborted: [], intercepted: 0 };
  const o = options(seen);
  const handler = connectNodeAdapter({
    routes: (r) => r.service(service, impl(seen)),
    interceptors: o.interceptors ?? [],
    readMaxBytes: READ_MAX_BYTES,
  });
  return listen(http2.createServer(handler), seen, []);
}

/** The fast path in front of connect-node, both built by `unaryServers` from one options object. */
export function startFast(): Promise<Running> {
  const seen: Seen = { aborted: [], intercepted: 0 };
  const taken: string[] = [];
  const servers = unaryServers(options(seen), ['connect', 'grpc'], 'http');
  const front = http2.createServer();
  serveStreams(
    front,
    (stream, headers) => {
      const took = servers.take(stream, headers);
      if (took) taken.push(String(headers['content-type']));
      return took;
    },
    http2.createServer(servers.handler),
  );
  return listen(front, seen, taken);
}

/** A request message's bytes (the Check request with `command` as its body). */
export function requestBytes(command: string | Uint8Array): Uint8Array {
  return toBinary(
    backendApi.CheckRequestSchema,
    create(backendApi.CheckRequestSchema, { body: typeof command === 'string' ? bytes(command) : command }),
  );
}

/** `message` in a gRPC envelope (flags byte, big-endian length). */
export function envelope(message: Uint8Array, flags = 0, declared = message.length): Buffer {
  const out = Buffer.alloc(5 + message.length);
  out[0] = flags;
  out.writeUInt32BE(declared, 1);
  out.set(message, 5);
  return out;
}

/** Everything an HTTP/2 answer carries, minus the date. */
export interface Answer {
  status: number;
  headers: [string, string][];
  trailers: [string, string][];
  body: string;
  reset?: number;
}

function sorted(h: http2.IncomingHttpHeaders): [string, string][] {
  return Object.entries(h)
    .filter(([k]) => k !== 'date' && k !== ':status')
    .map(([k, v]): [string, string] => [k, Array.isArray(v) ? v.join(', ') : String(v)])
    .sort(([a], [b]) => a.localeCompare(b));
}

/** Sends one raw HTTP/2 request and reads the whole answer; `resetAfterMs` cancels it instead. */
export function send(
  url: string,
  path: string,
  headers: http2.OutgoingHttpHeaders,
  body: Uint8Array,
  resetAfterMs?: number,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url);
    session.on('error', reject);
    const req = session.request({ ':method': 'POST', ':path': path, ...headers });
    const answer: Answer = { status: 0, headers: [], trailers: [], body: '' };
    const chunks: Buffer[] = [];
    req.on('response', (h) => {
      answer.status = Number(h[':status']);
      answer.headers = sorted(h);
    });
    req.on('trailers', (t: http2.IncomingHttpHeaders) => (answer.trailers = sorted(t)));
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => undefined);
    req.on('close', () => {
      answer.body = Buffer.concat(chunks).toString('base64');
      if (req.rstCode !== http2.constants.NGHTTP2_NO_ERROR) answer.reset = req.rstCode;
      session.close();
      resolve(answer);
    });
    req.end(body);
    if (resetAfterMs !== undefined) setTimeout(() => req.close(http2.constants.NGHTTP2_CANCEL), resetAfterMs);
  });
}
