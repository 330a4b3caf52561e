import type { connector } from '@wordgame/contracts';
import type { CommandOutcome } from '../botcommands/index.js';
import type { PaymentDeps } from './deps.js';
import { contactChannelsOf, type ContactChannels } from '../accounts/index.js';

/** How one channel went; logged and counted, never raised. */
export type ChannelOutcome = 'sent' | 'skipped' | 'failed' | CommandOutcome['status'];

/** One message to a customer about an order, as each channel carries it. */
export interface CustomerNotice {
  /** What happened to the order (the metrics' `kind` label and the log line). */
  kind: 'failed' | 'credited';
  accountId: bigint;
  orderId: string;
  /** The NOTIFY command, worded by the bot from libs/i18n in the user's language. */
  bot: { kind: connector.NotificationKind; params: Record<string, string> };
  mail: { subject: string; text: string };
  /** Extra fields of the log line (never an address). */
  log?: Record<string, string>;
}

/**
 * Tells the customer on every channel the account has, so a web-only customer hears too: a NOTIFY
 * command through the bot when the account has a telegram identity, and a mail when it has a
 * confirmed e-mail address; both are read in one statement. Best-effort: never throws; each
 * channel's outcome is logged (never the address) and counted, and a failed read fails both.
 * Callers send it after the money transaction committed, never inside it.
 */
export async function tellCustomer(deps: PaymentDeps, notice: CustomerNotice): Promise<void> {
  let channels: ContactChannels | null;
  try {
    channels = await contactChannelsOf(deps.db, notice.accountId);
  } catch (err: unknown) {
    deps.logger.warn({ err, orderId: notice.orderId }, `payment ${notice.kind} notice: contact channels not read`);
    channels = null;
  }
  const [bot, email] =
    channels === null
      ? (['failed', 'failed'] as const)
      : await Promise.all([viaBot(deps, notice, channels), viaMail(deps, notice, channels)]);
  deps.metrics.notice(notice.kind, 'bot', bot);
  deps.metrics.notice(notice.kind, 'email', email);
  deps.logger.info(
    { orderId: notice.orderId, accountId: String(notice.accountId), ...notice.log, bot, email },
    `payment ${notice.kind} notice`,
  );
}

async function viaBot(deps: PaymentDeps, notice: CustomerNotice, channels: ContactChannels): Promise<ChannelOutcome> {
  const externalId = channels.telegramId;
  if (externalId === undefined) return 'skipped';
  try {
    const outcome = await deps.bot.notify({ externalId, kind: notice.bot.kind, params: notice.bot.params });
    return outcome.status;
  } catch (err: unknown) {
    deps.logger.warn({ err, orderId: notice.orderId }, `payment ${notice.kind} notice: bot channel failed`);
    return 'failed';
  }
}

async function viaMail(deps: PaymentDeps, notice: CustomerNotice, channels: ContactChannels): Promise<ChannelOutcome> {
  const email = channels.email;
  if (!email) return 'skipped';
  try {
    await deps.mailer.send({ to: email, subject: notice.mail.subject, text: notice.mail.text });
    return 'sent';
  } catch (err: unknown) {
    deps.logger.warn(
      { err: err instanceof Error ? err.name : 'unknown', orderId: notice.orderId },
      `payment ${notice.kind} notice: mail channel failed`,
    );
    return 'failed';
  }
}
