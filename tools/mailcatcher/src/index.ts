import type { Server } from 'node:http';
import type { AddressInfo, Server as NetServer } from 'node:net';
import { createLogger, type Logger } from '@wordgame/logging';
import { createViewServer } from './http.js';
import { createSmtpServer } from './smtp.js';
import { MailStore } from './store.js';

export { MailStore, type CaughtMail } from './store.js';

/** Where and how the catcher listens; ports 0 ask the OS for free ones (tests). */
export interface MailCatcherOptions {
  host?: string;
  smtpPort?: number;
  httpPort?: number;
  maxMessages?: number;
  maxBytes?: number;
  logger?: Logger;
}

/** A running catcher: the SMTP port to send to, the view's URL, its mailbox, and stop(). */
export interface MailCatcher {
  readonly smtpPort: number;
  readonly url: string;
  readonly store: MailStore;
  stop(): Promise<void>;
}

function listen(
  server: Server | NetServer,
  port: number,
  host: string,
  listenOn: (cb: () => void) => void = (cb) => server.listen(port, host, cb),
): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    listenOn(() => resolve((server.address() as AddressInfo).port));
  });
}

const close = (server: Server | NetServer): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

/**
 * Starts the dev sandbox's mail catcher: an SMTP receiver (the backend's product mail and
 * Alertmanager's alerts) and an HTTP view of what it caught. Nothing is ever relayed.
 */
export async function startMailCatcher(options: MailCatcherOptions = {}): Promise<MailCatcher> {
  const host = options.host ?? '127.0.0.1';
  const logger = options.logger ?? createLogger('mailcatcher', 'silent');
  const store = new MailStore(options.maxMessages ?? 500);
  const smtp = createSmtpServer(
    (from, to, raw) => {
      const mail = store.add(from, to, raw);
      logger.info({ id: mail.id, to: mail.to, subject: mail.subject, size: mail.size }, 'mail caught');
    },
    options.maxBytes ?? 10 * 1024 * 1024,
    logger,
  );
  const view = createViewServer(store, () => smtp.server.listening);
  const smtpPort = await listen(smtp.server, options.smtpPort ?? 0, host, (cb) => smtp.listen(options.smtpPort ?? 0, host, cb));
  const httpPort = await listen(view, options.httpPort ?? 0, host);
  return {
    smtpPort,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${httpPort}`,
    store,
    async stop() {
      view.closeAllConnections();
      await Promise.all([close(view), new Promise<void>((resolve) => smtp.close(() => resolve()))]);
    },
  };
}
