import { randomUUID } from 'node:crypto';

/** One received message as the JSON view shows it (snake_case, like the rest of the project's APIs). */
export interface CaughtMail {
  id: string;
  received_at: string;
  /** The envelope sender (MAIL FROM), empty for a bounce. */
  from: string;
  /** The envelope recipients (RCPT TO), in order. */
  to: string[];
  /** The Subject header with RFC 2047 encoded words decoded; empty when absent. */
  subject: string;
  /**
   * The body as text when the message is a single text part (quoted-printable and base64 decoded,
   * as the backend's product mail is): a confirmation link reads as sent. Null for multipart mail.
   */
  text: string | null;
  /** Size of the raw message in bytes. */
  size: number;
  /** The message as received (headers and body, CRLF line ends, dot-stuffing removed). */
  raw: string;
}

/**
 * The catcher's mailbox: newest first, bounded to `max` messages (the oldest is dropped), in memory
 * only — a dev sandbox's mail has no value after a restart.
 */
export class MailStore {
  readonly #messages: CaughtMail[] = [];

  constructor(private readonly max: number) {}

  /** Stores a message received for `to` from `from`; answers the stored entry. */
  add(from: string, to: readonly string[], raw: string): CaughtMail {
    const mail: CaughtMail = {
      id: randomUUID(),
      received_at: new Date().toISOString(),
      from,
      to: [...to],
      subject: decodeWords(headerOf(raw, 'subject') ?? ''),
      text: bodyText(raw),
      size: Buffer.byteLength(raw),
      raw,
    };
    this.#messages.unshift(mail);
    this.#messages.length = Math.min(this.#messages.length, this.max);
    return mail;
  }

  /** Every stored message, newest first; `to` keeps only those with that envelope recipient. */
  list(to?: string): CaughtMail[] {
    const wanted = to?.toLowerCase();
    return wanted ? this.#messages.filter((m) => m.to.some((r) => r.toLowerCase() === wanted)) : [...this.#messages];
  }

  get(id: string): CaughtMail | undefined {
    return this.#messages.find((m) => m.id === id);
  }

  clear(): void {
    this.#messages.length = 0;
  }
}

/** The unfolded value of the first header called `name` (case-insensitive), from the header block. */
export function headerOf(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/, 1)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const prefix = `${name.toLowerCase()}:`;
  const line = unfolded.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(prefix));
  return line?.slice(prefix.length).trim();
}

/** Decodes RFC 2047 encoded words (`=?utf-8?B?…?=`, `=?utf-8?Q?…?=`); other charsets are kept as written. */
export function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (whole, charset: string, enc: string, text: string) => {
      if (!/^utf-?8$/i.test(charset) && !/^us-ascii$/i.test(charset)) return whole;
      if (enc.toUpperCase() === 'B') return Buffer.from(text, 'base64').toString('utf8');
      const bytes = text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      return Buffer.from(bytes, 'latin1').toString('utf8');
    });
}

/** The decoded body of a single-part text message (7bit, 8bit, quoted-printable, base64); null otherwise. */
export function bodyText(raw: string): string | null {
  const type = (headerOf(raw, 'content-type') ?? 'text/plain').toLowerCase();
  if (!type.startsWith('text/')) return null;
  const split = /\r?\n\r?\n/.exec(raw);
  const body = split ? raw.slice(split.index + split[0].length) : '';
  const encoding = (headerOf(raw, 'content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding !== 'quoted-printable') return body;
  const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}
