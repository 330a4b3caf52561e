import type http2 from 'node:http2';
import type { StreamTaker } from './stream-taker.js';

type AnyServer = http2.Http2Server | http2.Http2SecureServer;

/**
 * Serves the streams of `front` (a server made WITHOUT a request handler, so Node installs no
 * compat layer on it): each stream is offered to `take` first, the rest is emitted as a public
 * `stream` event on `compat`, a never-listening server made with the request handler, whose
 * compat layer turns it into the usual request/response pair. Nothing private of Node is
 * replaced: the compat layer is only ever installed by Node itself, on `compat`.
 */
export function serveStreams(front: AnyServer, take: StreamTaker, compat: AnyServer): void {
  if (front.listenerCount('request') > 0) throw new Error('the front server must have no request handler');
  front.on('stream', (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, flags: number, rawHeaders: string[]) => {
    if (!take(stream, headers)) compat.emit('stream', stream, headers, flags, rawHeaders);
  });
}
