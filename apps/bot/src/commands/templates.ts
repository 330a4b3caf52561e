import { connector } from '@wordgame/contracts';
import { createTranslator, LANGUAGES, type Language, type MessageKey, type Translator } from '@wordgame/i18n';

const Kind = connector.NotificationKind;

/** A template parameter a notification kind needs was missing: a render failure. */
export class RenderError extends Error {
  override readonly name = 'RenderError';
}

/** A rendered kind: its message in the shared catalogue and the parameters that message needs. */
interface Template {
  key: MessageKey;
  params: readonly string[];
}

/**
 * The notification kinds the bot renders out-of-app, as a chat message. Only payment outcomes
 * are: the user is away from the game when money moves. Your-turn and friend-request (and any kind
 * unknown to this build) are in-app only; for them the bot acks delivered=false with no error.
 * The words live in the catalogue the wallet page shares (`libs/i18n`).
 */
const TEMPLATES: ReadonlyMap<connector.NotificationKind, Template> = new Map<connector.NotificationKind, Template>([
  [Kind.PAYMENT_CREDITED, { key: 'bot.payment_credited', params: ['product_title', 'chips', 'order_id'] }],
  [Kind.PAYMENT_FAILED, { key: 'bot.payment_failed', params: ['order_id', 'reason'] }],
  [Kind.PAYMENT_REFUNDED, { key: 'bot.payment_refunded', params: ['order_id'] }],
]);

const TRANSLATORS: ReadonlyMap<Language, Translator> = new Map(LANGUAGES.map((l) => [l, createTranslator(l)]));

/**
 * Renders a notification to message text in `language`, or undefined when the kind is not
 * rendered out-of-app. A parameter `p` is read as `p_<language>` when the backend sent one (a
 * product title per language), else as `p`. Throws RenderError when a parameter the kind needs is
 * missing or empty.
 */
export function renderNotification(
  kind: connector.NotificationKind,
  params: Readonly<Record<string, string>>,
  language: Language = 'en',
): string | undefined {
  const template = TEMPLATES.get(kind);
  if (!template) return undefined;
  const values: Record<string, string> = {};
  for (const name of template.params) {
    // A value worded per language (`product_title_ru`) is taken in the message's language, so the
    // notice never mixes two; the plain name (English) is the fallback and must be there.
    const value = (params[`${name}_${language}`]?.trim() || params[name]?.trim()) ?? '';
    if (!value) throw new RenderError(`notification ${Kind[kind]} needs param ${name}`);
    values[name] = value;
  }
  const translator = TRANSLATORS.get(language) ?? createTranslator(language);
  return translator.t(template.key, values);
}
