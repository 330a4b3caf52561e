import type http from 'node:http';
import type http2 from 'node:http2';
import { Code } from '@connectrpc/connect';
import { MAX_TIMER_MS, parseGrpcTimeout } from '../deadline.js';
import { answerTrailersOnly, isGrpc } from './grpc-edge.js';

const CONNECT_TIMEOUT = /^\d{1,10}$/;
/** MAX_TIMER_MS as a spec grpc-timeout connect-node reads (8 digits at most), rounded down: 2147483S. */
const CLAMPED_GRPC_TIMEOUT = `${Math.floor(MAX_TIMER_MS / 1000)}S`;

type AnyRequest = http.IncomingMessage | http2.Http2ServerRequest;
type AnyResponse = http.ServerResponse | http2.Http2ServerResponse;

/**
 * Puts the deadline of an incoming call in a form connect-node can time, before it reads it:
 * a well-formed `grpc-timeout` or `connect-timeout-ms` longer than MAX_TIMER_MS is rewritten to
 * MAX_TIMER_MS (`2147483S` for gRPC; connect-node would start a timer that fires after 1 ms). A
 * gRPC call whose `grpc-timeout` is malformed is answered here, trailers-only, with INTERNAL: the
 * gRPC spec has the library never generate INVALID_ARGUMENT (statuscodes.md), which connect-node
 * would answer.
 */
export function timerSafeDeadlines<Req extends AnyRequest, Res extends AnyResponse>(
  inner: (req: Req, res: Res) => void,
): (req: Req, res: Res) => void {
  return (req, res) => {
    const headers = req.headers;
    const grpc = headers['grpc-timeout'];
    if (grpc !== undefined && isGrpc(headers)) {
      const ms = parseGrpcTimeout(grpc);
      if (ms === null && 'stream' in req) {
        answerTrailersOnly(req.stream, Code.Internal, `malformed grpc-timeout: ${String(grpc).slice(0, 32)}`);
        return;
      }
      if (ms !== null && ms !== undefined && ms > MAX_TIMER_MS) headers['grpc-timeout'] = CLAMPED_GRPC_TIMEOUT;
    }
    const connect = headers['connect-timeout-ms'];
    if (typeof connect === 'string' && CONNECT_TIMEOUT.test(connect) && Number(connect) > MAX_TIMER_MS) {
      headers['connect-timeout-ms'] = String(MAX_TIMER_MS);
    }
    inner(req, res);
  };
}
