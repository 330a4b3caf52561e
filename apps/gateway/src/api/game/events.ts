import type { Request, RequestHandler, Response, Router } from 'express';
import { encodeTable, fb } from '@wordgame/contracts';
import { authenticate, type SessionResolver, backendCallOptions } from '../../auth/index.js';
import type { BackendClients } from '../../backend/index.js';
import { type ApiMetrics, bindRequestLog } from '../../http/index.js';
import { readGameEvent, type GameEventJson } from './codec.js';
import type { DocumentedRoute } from '../doc.js';
import { gameIdParam, gamePath } from './operations.js';
import { gameEventWire } from './wire.js';

/** Path of the live event stream of one game. */
export const GAME_EVENTS_PATH = '/api/v1/games/:id/events';

/** The event stream as the API document describes it. */
export const GAME_EVENTS_ROUTE: DocumentedRoute = {
  name: 'game.events',
  method: 'get',
  path: GAME_EVENTS_PATH,
  auth: 'session',
  doc: {
    tag: 'game',
    summary: "The game's live events (server-sent events)",
    description:
      'First `snapshot` (the whole game), then `opponent_moved`, `opponent_resigned`, `opponent_deleted`; each `data:` is the JSON in `x-event-data`. An idle stream sends a comment every 15 s. Failures before the first event are JSON errors; a reconnect gets a fresh snapshot.',
    params: gamePath,
    success: { status: 200, description: 'The event stream.', body: gameEventWire, mediaType: 'text/event-stream' },
    errors: ['invalid_game_id', 'unknown_game'],
  },
};

/** How often an idle stream sends an SSE comment so proxies and clients keep it open. */
export const SSE_HEARTBEAT_MS = 15_000;

function frame(event: GameEventJson): string {
  const data = JSON.stringify(event, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  const id = event.move === undefined ? '' : `id: ${event.move.move_no}\n`;
  return `${id}event: ${event.kind}\ndata: ${data}\n\n`;
}

/**
 * GET /api/v1/games/:id/events (operation `game.events`, session auth): the game's live events as
 * server-sent events, re-emitted from the backend's WatchGame server stream. The first event is
 * `snapshot` (the whole game); then `opponent_moved` (the move delta with the state, including
 * `hint_unlock_left_seconds`), `opponent_resigned`, `opponent_deleted`. Failures before the
 * first event answer as ordinary JSON errors (e.g. 404 `unknown_game`); a stream that breaks
 * later just ends and the client reconnects (it gets a fresh snapshot). The backend call has no
 * deadline and is cancelled when the client goes away.
 */
export function mountGameEvents(router: Router, deps: { backend: BackendClients; sessions: SessionResolver; metrics: ApiMetrics }): void {
  const named: RequestHandler = (req, res, next) => {
    const started = process.hrtime.bigint();
    bindRequestLog(req, { operation: 'game.events' });
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      deps.metrics.observe('game.events', res.statusCode, seconds);
      req.log.info({ status: res.statusCode, ms: Math.round(seconds * 1e4) / 10 }, 'stream done');
    });
    next();
  };
  router[GAME_EVENTS_ROUTE.method](GAME_EVENTS_ROUTE.path, named, authenticate(deps.sessions, false), (req, res) =>
    stream(deps.backend, req, res),
  );
}

async function stream(backend: BackendClients, req: Request, res: Response): Promise<void> {
  const gameId = gameIdParam(req);
  const abort = new AbortController();
  res.once('close', () => abort.abort());
  const call = { ...backendCallOptions(req.requestId, req.session, req.clientAddress), timeoutMs: 0, signal: abort.signal };
  const events = backend.game
    .watchGame({ body: encodeTable((b) => fb.GameQuery.createGameQuery(b, gameId)) }, call)
    [Symbol.asyncIterator]();
  const first = await events.next();
  if (first.done) throw new Error('the backend ended the game stream before its snapshot');
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  res.write(frame(readGameEvent(first.value.body)));
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), SSE_HEARTBEAT_MS);
  try {
    for (let next = await events.next(); !next.done; next = await events.next()) res.write(frame(readGameEvent(next.value.body)));
  } catch (err: unknown) {
    if (!abort.signal.aborted) req.log.warn({ err }, 'game stream from the backend broke');
  } finally {
    clearInterval(heartbeat);
    abort.abort();
    res.end();
  }
}
