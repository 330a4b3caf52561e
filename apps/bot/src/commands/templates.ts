import { connector } from '@wordgame/contracts';

const Kind = connector.NotificationKind;

/** A template parameter a notification kind needs was missing: a render failure. */
export class RenderError extends Error {
  override readonly name = 'RenderError';
}

type Template = (param: (name: string) => string) => string;

/**
 * The notification kinds the bot renders out-of-app, as a chat message. Only payment outcomes
 * are: the user is away from the game when money moves. Your-turn and friend-request (and any kind
 * unknown to this build) are in-app only; for them the bot acks delivered=false with no error.
 */
const TEMPLATES: ReadonlyMap<connector.NotificationKind, Template> = new Map<connector.NotificationKind, Template>([
  [Kind.PAYMENT_CREDITED, (p) => `Payment received: ${p('product_title')}. ${p('chips')} chips were added to your wallet. Order ${p('order_id')}.`],
  [Kind.PAYMENT_FAILED, (p) => `Your payment for order ${p('order_id')} did not go through: ${p('reason')}.`],
  [Kind.PAYMENT_REFUNDED, (p) => `Your purchase (order ${p('order_id')}) was refunded.`],
]);

/**
 * Renders a notification to message text, or undefined when the kind is not rendered out-of-app.
 * Throws RenderError when a parameter the kind needs is missing or empty.
 */
export function renderNotification(kind: connector.NotificationKind, params: Readonly<Record<string, string>>): string | undefined {
  const template = TEMPLATES.get(kind);
  if (!template) return undefined;
  return template((name) => {
    const value = params[name]?.trim();
    if (!value) throw new RenderError(`notification ${Kind[kind]} needs param ${name}`);
    return value;
  });
}
