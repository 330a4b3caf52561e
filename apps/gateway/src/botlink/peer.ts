import type http2 from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { createContextKey, createContextValues, type ContextValues } from '@connectrpc/connect';

/** The verified client certificate of a bot-link request. */
export interface PeerIdentity {
  /** Subject CN ("unknown" when absent). */
  subject: string;
}

/** Handler context key carrying the peer certificate identity. */
export const peerKey = createContextKey<PeerIdentity>({ subject: 'unknown' }, { description: 'bot-link peer certificate' });

/**
 * Handler context key carrying the HTTP/2 session (the connection) a call arrived on: the Link
 * handler tells a second process from a reconnect of the same one by it, and PINGs it.
 */
export const connectionKey = createContextKey<http2.Http2Session | undefined>(undefined, { description: 'bot-link HTTP/2 connection' });

const subjects = new WeakMap<object, string | undefined>();

/**
 * The context values of a call on `socket`: the client certificate's subject CN, and the HTTP/2
 * `session` when there is one. The handshake already verified the certificate against the CA, so
 * only the subject is taken; it is read once per connection (getPeerCertificate builds a fresh
 * object on every call).
 */
export function peerValues(socket: unknown, session?: http2.Http2Session): ContextValues {
  const values = createContextValues();
  if (session) values.set(connectionKey, session);
  if (typeof socket !== 'object' || socket === null) return values;
  let subject: string | undefined;
  if (subjects.has(socket)) subject = subjects.get(socket);
  else {
    const tls = socket as Partial<Pick<TLSSocket, 'getPeerCertificate'>>;
    const cn = typeof tls.getPeerCertificate === 'function' ? tls.getPeerCertificate().subject?.CN : undefined;
    subject = Array.isArray(cn) ? cn.join(',') : cn;
    subjects.set(socket, subject);
  }
  if (subject) values.set(peerKey, { subject });
  return values;
}
