import http2 from 'node:http2';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { Code } from '@connectrpc/connect';
import type { StreamTaker } from '@wordgame/h2-unary';

/** The extended key usage OID of TLS client authentication. */
export const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';

/** Why a CA-verified client certificate is still not taken as the bot. */
export type IdentityRefusal = 'no_client_auth' | 'not_allowed';

/** The verdict on one connection's client certificate. */
export type IdentityVerdict =
  | { ok: true; subject: string }
  | { ok: false; reason: IdentityRefusal; code: Code; subject: string; message: string };

/**
 * Judges a client certificate the TLS handshake already chained to the bot-link CA: it must name
 * clientAuth in its extended key usage (a certificate without the extension is usable for
 * anything and is refused too), and its subject CN or one of its DNS subjectAltNames must be in
 * `allowed` (exact, case-sensitive). No clientAuth is Unauthenticated; a name off the list is
 * PermissionDenied.
 */
export function judgeClientCertificate(cert: Partial<PeerCertificate> | undefined, allowed: ReadonlySet<string>): IdentityVerdict {
  const cn = cert?.subject?.CN;
  const subject = (Array.isArray(cn) ? cn.join(',') : cn) ?? '';
  const usages = cert?.ext_key_usage ?? [];
  if (!usages.includes(CLIENT_AUTH_OID)) {
    return {
      ok: false,
      reason: 'no_client_auth',
      code: Code.Unauthenticated,
      subject,
      message: 'client certificate lacks the clientAuth extended key usage',
    };
  }
  const names = [subject, ...dnsNames(cert?.subjectaltname)];
  if (!names.some((name) => name !== '' && allowed.has(name))) {
    return {
      ok: false,
      reason: 'not_allowed',
      code: Code.PermissionDenied,
      subject,
      message: 'client certificate names no allowed bot identity',
    };
  }
  return { ok: true, subject };
}

/** The DNS entries of Node's `subjectaltname` string (`DNS:a, IP Address:…`); quoted (escaped) entries never match a configured name. */
function dnsNames(san: string | undefined): string[] {
  if (!san) return [];
  return san
    .split(', ')
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice(4));
}

/** A refused call, as the gate reports it. */
export interface IdentityRefused {
  reason: IdentityRefusal;
  subject: string;
  remote: string | undefined;
}

/**
 * The bot-link's identity gate: every call (the Link stream and the unary RPCs, on the fast path
 * and through connect-node) from a connection whose certificate fails judgeClientCertificate is
 * answered with a trailers-only gRPC error and reported once per call; no handler runs. The
 * verdict is taken once per connection.
 */
export class BotIdentityGate {
  private readonly allowed: ReadonlySet<string>;
  private readonly verdicts = new WeakMap<object, IdentityVerdict>();

  constructor(
    allowed: readonly string[],
    private readonly onRefused: (refused: IdentityRefused) => void,
  ) {
    this.allowed = new Set(allowed);
  }

  /** The verdict on the client certificate of `socket` (a TLS socket; anything else is refused). */
  verdictOf(socket: unknown): IdentityVerdict {
    if (typeof socket !== 'object' || socket === null) return judgeClientCertificate(undefined, this.allowed);
    const known = this.verdicts.get(socket);
    if (known) return known;
    const tls = socket as Partial<Pick<TLSSocket, 'getPeerCertificate'>>;
    const verdict = judgeClientCertificate(
      typeof tls.getPeerCertificate === 'function' ? tls.getPeerCertificate() : undefined,
      this.allowed,
    );
    this.verdicts.set(socket, verdict);
    return verdict;
  }

  /** A stream taker that refuses streams of a refused connection and offers the rest to `inner`. */
  taker(inner: StreamTaker): StreamTaker {
    return (stream, headers) => (this.refuse(stream) ? true : inner(stream, headers));
  }

  /** `inner` (the connect-node adapter) behind the gate. */
  handler(inner: (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void) {
    return (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse): void => {
      if (!this.refuse(req.stream)) inner(req, res);
    };
  }

  /** Answers and reports `stream` when its connection is refused; false when it may go on. */
  private refuse(stream: http2.ServerHttp2Stream): boolean {
    const socket = stream.session?.socket;
    const verdict = this.verdictOf(socket);
    if (verdict.ok) return false;
    this.onRefused({ reason: verdict.reason, subject: verdict.subject, remote: socket?.remoteAddress });
    stream.on('error', () => undefined);
    if (!stream.destroyed && !stream.closed && !stream.headersSent) {
      stream.respond(
        {
          ':status': 200,
          'content-type': 'application/grpc',
          'grpc-status': String(verdict.code),
          'grpc-message': encodeURIComponent(verdict.message),
        },
        { endStream: true },
      );
      stream.close(http2.constants.NGHTTP2_NO_ERROR);
    }
    return true;
  }
}
