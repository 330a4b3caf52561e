/**
 * The input rules of the bot-link's support RPCs (ListStarCharges, OpenSupportCase) and of an
 * operator's reply, defined once: the gateway refuses a bad input before the backend is asked, and
 * the backend checks the same rules again for any other caller.
 */

/** Longest case text or reply, in characters (code points) after trimming. */
export const SUPPORT_TEXT_MAX = 1_000;
/** Most charges one ListStarCharges answers; 0 asks for the default. */
export const STAR_CHARGES_MAX = 10;
/** The answer's size when the request says 0. */
export const STAR_CHARGES_DEFAULT = 5;
/** The languages a case is written and answered in. */
export const SUPPORT_LANGUAGES = ['en', 'ru'] as const;

/** Control characters other than newline (C0, DEL, C1). */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
/** A platform charge id: 1-256 printable ASCII characters without spaces. */
const CHARGE_ID = /^[\u0021-\u007e]{1,256}$/;

/** Why a case text or reply is refused (a message for the caller), or null when it is acceptable. */
export function supportTextProblem(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed.length === 0) return 'text is required';
  if ([...trimmed].length > SUPPORT_TEXT_MAX) return `text must be at most ${SUPPORT_TEXT_MAX} characters`;
  if (CONTROL.test(trimmed)) return 'text must not contain control characters other than newlines';
  return null;
}

/** True for the shape of a platform charge id (telegram_payment_charge_id). */
export function isChargeIdShape(value: string): boolean {
  return CHARGE_ID.test(value);
}

/** True for a language a case may be written in. */
export function isSupportLanguage(value: string): value is (typeof SUPPORT_LANGUAGES)[number] {
  return (SUPPORT_LANGUAGES as readonly string[]).includes(value);
}
