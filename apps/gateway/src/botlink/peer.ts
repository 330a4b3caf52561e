import type { TLSSocket } from 'node:tls';
import { createContextKey, createContextValues, type ContextValues } from '@connectrpc/connect';

/** The verified client certificate of a bot-link request. */
export interface PeerIdentity {
  /** Subject CN ("unknown" when absent). */
  subject: string;
}

/** Handler context key carrying the peer certificate identity. */
export const peerKey = createContextKey<PeerIdentity>({ subject: 'unknown' }, { description: 'bot-link peer certificate' });

const subjects = new WeakMap<object, string | undefined>();

/**
 * The context values of a call on `socket`: the client certificate's subject CN. The handshake
 * already verified the certificate against the CA, so only the subject is taken; it is read once
 * per connection (getPeerCertificate builds a fresh object on every call).
 */
export function peerValues(socket: unknown): ContextValues {
  const values = createContextValues();
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
