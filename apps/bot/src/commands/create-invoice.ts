import type { botlink } from '@wordgame/contracts';
import type { CommandOutcome } from '../link/index.js';
import type { PlatformClient } from '../platform/index.js';
import { callForCommand, delivered, failed, failureOf } from './outcome.js';

/**
 * create_invoice: mints a Telegram Stars invoice link (currency XTR, exactly one price of
 * `amount` whole stars, empty provider token, payload = the order id) and returns it as the Ack
 * result. An amount outside 1..2^53 never reaches the platform; the platform's own validation
 * errors (title or payload too long, ...) come back as the Ack error.
 */
export async function createInvoice(platform: PlatformClient, command: botlink.CreateInvoiceCommand): Promise<CommandOutcome> {
  if (command.amount <= 0n || command.amount > BigInt(Number.MAX_SAFE_INTEGER))
    return failed('amount must be a positive whole number of stars');
  if (command.payload === '') return failed('payload (the order id) is empty');
  try {
    const link = await callForCommand(platform, 'createInvoiceLink', {
      title: command.title,
      description: command.description,
      payload: command.payload,
      provider_token: '',
      currency: 'XTR',
      prices: [{ label: command.title, amount: Number(command.amount) }],
    });
    return delivered(link);
  } catch (err: unknown) {
    return failureOf(err);
  }
}
