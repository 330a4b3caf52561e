import type { Logger } from '@wordgame/logging';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';

/** What the SMTP side hands over for each accepted message. */
export type Deliver = (from: string, to: string[], raw: string) => void;

/**
 * A receive-only SMTP server on nodemailer's maintained `smtp-server` (EHLO/HELO, MAIL, RCPT, DATA,
 * RSET, NOOP, QUIT, SIZE, 8BITMIME, SMTPUTF8; no TLS and no AUTH, nothing relayed): every message it
 * accepts goes to `deliver`. A message larger than `maxBytes` is refused with 552. For a dev sandbox
 * only: it never sends anything on.
 */
export function createSmtpServer(deliver: Deliver, maxBytes: number, logger: Logger): SMTPServer {
  const server = new SMTPServer({
    name: 'mailcatcher',
    banner: 'dev sandbox: nothing is relayed',
    disabledCommands: ['AUTH', 'STARTTLS'],
    authOptional: true,
    size: maxBytes,
    socketTimeout: 60_000,
    logger: false,
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null, message?: string) => void) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        if (!stream.sizeExceeded) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (stream.sizeExceeded) {
          callback(Object.assign(new Error(`message larger than ${maxBytes} bytes`), { responseCode: 552 }));
          return;
        }
        const { mailFrom, rcptTo } = session.envelope;
        deliver(
          mailFrom === false ? '' : mailFrom.address,
          rcptTo.map((r) => r.address),
          Buffer.concat(chunks).toString('utf8'),
        );
        callback(null, 'OK: message caught');
      });
    },
  });
  server.on('error', (err) => logger.debug({ err }, 'smtp connection error'));
  return server;
}
