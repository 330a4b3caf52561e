import type { botlink } from '@wordgame/contracts';
import type { CommandOutcome } from '../link/index.js';
import type { PlatformClient } from '../platform/index.js';
import { callForCommand, delivered, failed, failureOf } from './outcome.js';

/** Longest subscription period forwarded, in seconds (the platform allows only 2592000 today). */
const MAX_SUBSCRIPTION_PERIOD = 366 * 86_400;

/**
 * create_invoice: mints a Telegram Stars invoice link (currency XTR, exactly one price of
 * `amount` whole stars, empty provider token, payload = the order id) and returns it as the Ack
 * result. A `subscription_period` above 0 makes it a stars subscription's invoice
 * (createInvoiceLink.subscription_period, seconds; the platform accepts only 2592000 and refuses any
 * other with a 400 that comes back as the Ack error); 0 is a one-time invoice and sends no such
 * field. An amount outside 1..2^53 or a negative or absurd period never reaches the platform; the
 * platform's own validation errors (title or payload too long, ...) come back as the Ack error.
 */
export async function createInvoice(platform: PlatformClient, command: botlink.CreateInvoiceCommand): Promise<CommandOutcome> {
  if (command.amount <= 0n || command.amount > BigInt(Number.MAX_SAFE_INTEGER))
    return failed('amount must be a positive whole number of stars');
  if (command.payload === '') return failed('payload (the order id) is empty');
  if (command.subscriptionPeriod < 0n || command.subscriptionPeriod > BigInt(MAX_SUBSCRIPTION_PERIOD))
    return failed(`subscription_period must be 0 (one-time) or 1..${MAX_SUBSCRIPTION_PERIOD} seconds`);
  try {
    const link = await callForCommand(platform, 'createInvoiceLink', {
      title: command.title,
      description: command.description,
      payload: command.payload,
      provider_token: '',
      currency: 'XTR',
      prices: [{ label: command.title, amount: Number(command.amount) }],
      ...(command.subscriptionPeriod > 0n ? { subscription_period: Number(command.subscriptionPeriod) } : {}),
    });
    return delivered(link);
  } catch (err: unknown) {
    return failureOf(err);
  }
}
