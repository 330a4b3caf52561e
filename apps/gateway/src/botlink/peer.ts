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
 * connectNodeAdapter `contextValues`: reads the client certificate from the TLS socket. The
 * handshake already verified it against the CA, so only the subject is taken here.
 */
export function peerContextValues(req: { socket: unknown }): ContextValues {
  const values = createContextValues();
  const socket = req.socket as Partial<Pick<TLSSocket, 'getPeerCertificate'>>;
  const cn = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate().subject?.CN : undefined;
  const subject = Array.isArray(cn) ? cn.join(',') : cn;
  if (subject) values.set(peerKey, { subject });
  return values;
}
