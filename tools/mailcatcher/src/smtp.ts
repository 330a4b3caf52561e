import { createServer, type Server, type Socket } from 'node:net';
import type { Logger } from '@wordgame/logging';

/** What the SMTP side hands over for each accepted message. */
export type Deliver = (from: string, to: string[], raw: string) => void;

/** Longest command line accepted (RFC 5321 allows 512; extensions make it longer). */
const MAX_LINE = 4096;

/**
 * A receive-only SMTP server (RFC 5321 subset: EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, VRFY,
 * QUIT; no TLS, no AUTH, nothing relayed): every message it accepts goes to `deliver`. Messages
 * larger than `maxBytes` are refused with 552. For a dev sandbox only — it never sends anything on.
 */
export function createSmtpServer(deliver: Deliver, maxBytes: number, logger: Logger): Server {
  return createServer((socket) => session(socket, deliver, maxBytes, logger));
}

function session(socket: Socket, deliver: Deliver, maxBytes: number, logger: Logger): void {
  let buffer = '';
  let from: string | undefined;
  let to: string[] = [];
  let data: string[] | undefined;
  let dataBytes = 0;
  const reply = (text: string): void => {
    if (!socket.destroyed) socket.write(`${text}\r\n`);
  };
  const reset = (): void => {
    from = undefined;
    to = [];
    data = undefined;
    dataBytes = 0;
  };

  const dataLine = (line: string): void => {
    if (line === '.') {
      const raw = (data ?? []).join('\r\n') + '\r\n';
      if (dataBytes > maxBytes) reply(`552 message larger than ${maxBytes} bytes`);
      else {
        deliver(from ?? '', to, raw);
        reply('250 OK: message caught');
      }
      reset();
      return;
    }
    dataBytes += line.length + 2;
    if (dataBytes <= maxBytes) data?.push(line.startsWith('.') ? line.slice(1) : line);
  };

  const command = (line: string): void => {
    const verb = line.slice(0, 4).toUpperCase();
    const arg = line.slice(4).trim();
    switch (verb) {
      case 'EHLO':
        return reply(`250-mailcatcher\r\n250-8BITMIME\r\n250-SMTPUTF8\r\n250 SIZE ${maxBytes}`);
      case 'HELO':
        return reply('250 mailcatcher');
      case 'MAIL': {
        const address = /^FROM:\s*<([^>]*)>/i.exec(arg)?.[1];
        if (address === undefined) return reply('501 syntax: MAIL FROM:<address>');
        reset();
        from = address;
        return reply('250 OK');
      }
      case 'RCPT': {
        if (from === undefined) return reply('503 MAIL first');
        const address = /^TO:\s*<([^>]+)>/i.exec(arg)?.[1];
        if (address === undefined) return reply('501 syntax: RCPT TO:<address>');
        to.push(address);
        return reply('250 OK');
      }
      case 'DATA':
        if (to.length === 0) return reply('503 RCPT first');
        data = [];
        return reply('354 end data with <CR><LF>.<CR><LF>');
      case 'RSET':
        reset();
        return reply('250 OK');
      case 'NOOP':
        return reply('250 OK');
      case 'VRFY':
        return reply('252 cannot verify, will accept');
      case 'QUIT':
        reply('221 bye');
        socket.end();
        return;
      default:
        return reply('502 command not implemented');
    }
  };

  socket.setEncoding('utf8');
  socket.setTimeout(60_000, () => socket.destroy());
  socket.on('error', (err) => logger.debug({ err }, 'smtp connection error'));
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = buffer.slice(0, end).replace(/\r$/, '');
      buffer = buffer.slice(end + 1);
      if (data) dataLine(line);
      else command(line);
    }
    if (buffer.length > (data ? maxBytes : MAX_LINE)) {
      reply('500 line too long');
      socket.destroy();
    }
  });
  reply('220 mailcatcher ESMTP (dev sandbox: nothing is relayed)');
}
