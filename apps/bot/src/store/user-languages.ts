import type Database from 'better-sqlite3';
import { languageOf, type Language } from '@wordgame/i18n';

/**
 * The catalogue language of each platform user, learned from the `language_code` Telegram puts on
 * the user of every update (a message, a pre-checkout query, a chat join) and kept in the bot's
 * SQLite file, so a payment notice after a restart still speaks the payer's language. A code the
 * catalogue has no language for is not stored (the default applies).
 */
export class UserLanguages {
  private readonly upsert: Database.Statement<[number, string, number]>;
  private readonly select: Database.Statement<[number], { language: string }>;

  constructor(db: Database.Database) {
    this.upsert = db.prepare(
      'INSERT INTO user_languages (user_id, language, updated_at) VALUES (?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET language = excluded.language, updated_at = excluded.updated_at WHERE language <> excluded.language',
    );
    this.select = db.prepare('SELECT language FROM user_languages WHERE user_id = ?');
  }

  /** Records the user's language when their `language_code` maps to one of the catalogue's. */
  remember(userId: number, languageCode: string | undefined): void {
    const language = languageOf(languageCode);
    if (language) this.upsert.run(userId, language, Date.now());
  }

  /** The user's language, or undefined when the bot has not seen a usable `language_code`. */
  languageOf(userId: number): Language | undefined {
    return languageOf(this.select.get(userId)?.language);
  }
}
