import type http2 from 'node:http2';

/** Takes an HTTP/2 stream before a server's compat layer does; false leaves it to the request handler. */
export type StreamTaker = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => boolean;
