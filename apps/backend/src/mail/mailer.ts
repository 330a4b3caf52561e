import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { BackendConfig } from '../config/index.js';
import { systemClock, type Clock } from '../support/index.js';

/** One plain-text message. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail; where it goes depends on MAIL_TRANSPORT. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/**
 * Dev mailbox: each message becomes one RFC 5322 `.eml` file in `dir`, named so that a directory
 * listing sorts oldest first. Any mail client (or `cat`) opens it.
 */
export function devMailbox(dir: string, from: string, clock: Clock = systemClock): Mailer {
  return {
    async send(mail) {
      const now = clock();
      await mkdir(dir, { recursive: true });
      const name = `${now.toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`;
      const headers = [
        `From: ${from}`,
        `To: ${mail.to}`,
        `Subject: ${mail.subject}`,
        `Date: ${now.toUTCString()}`,
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: 8bit',
      ];
      await writeFile(path.join(dir, name), `${headers.join('\r\n')}\r\n\r\n${mail.text.replace(/\r?\n/g, '\r\n')}\r\n`);
    },
  };
}

/** Production mail through an SMTP server given as an smtp(s):// URL. */
export function smtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport(url);
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}

/** The mailer MAIL_TRANSPORT selects: SMTP in production, the dev mailbox otherwise. */
export function mailerFor(
  config: Pick<BackendConfig, 'MAIL_TRANSPORT' | 'SMTP_URL' | 'MAIL_DEV_DIR' | 'MAIL_FROM'>,
  clock: Clock = systemClock,
): Mailer {
  if (config.MAIL_TRANSPORT === 'smtp' && config.SMTP_URL !== undefined) return smtpMailer(config.SMTP_URL, config.MAIL_FROM);
  return devMailbox(config.MAIL_DEV_DIR, config.MAIL_FROM, clock);
}
