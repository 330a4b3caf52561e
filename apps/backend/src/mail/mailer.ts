import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
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
  /**
   * Erases the copies of the mail sent to `address` that this mailer keeps (an account deletion);
   * answers how many it erased. The SMTP mailer keeps none: what the relay logs is the operator's
   * (docs/operating/privacy.md).
   */
  forget(address: string): Promise<number>;
}

/** The `To:` header of one dev-mailbox message, lower-cased; undefined when it has none. */
function recipientOf(message: string): string | undefined {
  const head = message.split('\r\n\r\n', 1)[0] ?? '';
  const line = head.split('\r\n').find((l) => l.startsWith('To: '));
  return line?.slice(4).trim().toLowerCase();
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
    async forget(address) {
      const wanted = address.trim().toLowerCase();
      const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return [];
        throw err;
      });
      let erased = 0;
      for (const name of names) {
        if (!name.endsWith('.eml')) continue;
        const file = path.join(dir, name);
        if (recipientOf(await readFile(file, 'utf8')) !== wanted) continue;
        await unlink(file);
        erased += 1;
      }
      return erased;
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
    forget: () => Promise.resolve(0),
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
