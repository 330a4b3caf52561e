import type { Language } from '@wordgame/i18n';
import type { Logger } from '@wordgame/logging';
import type { PlatformClient } from '../platform/index.js';
import { Backoff, type BackoffOptions, sleep } from '../support/index.js';
import { menuOf, say } from './texts.js';

/** The command menu's languages: each gets its own list, and the default scope (no language_code) gets English. */
export const MENU_LANGUAGES: readonly Language[] = ['en', 'ru'];

/** Retry delays of a failed registration: from 2 s, x1.6, up to 5 minutes. */
export const MENU_RETRY: BackoffOptions = { initialMs: 2_000, maxMs: 300_000 };

export interface CommandMenuOptions {
  platform: PlatformClient;
  /** BOT_MINI_APP_URL: when set, the chat's menu button opens it. */
  miniAppUrl: string | undefined;
  /** The menu button's text language (BOT_DEFAULT_LANGUAGE; the button has one text for everyone). */
  buttonLanguage: Language;
  retry?: BackoffOptions;
  logger: Logger;
}

/**
 * Registers the chat menu at start: setMyCommands for the default scope (English, no
 * language_code) and once per MENU_LANGUAGES, then setChatMenuButton with a web_app button when
 * the Mini App URL is configured. A failure is logged and the whole registration (idempotent) is
 * tried again after a backoff until it succeeds or the bot stops: it never stops the bot.
 */
export class CommandMenu {
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  private done = false;

  constructor(private readonly options: CommandMenuOptions) {}

  /** True once every call of the registration succeeded. */
  get registered(): boolean {
    return this.done;
  }

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  private async loop(): Promise<void> {
    const backoff = new Backoff(this.options.retry ?? MENU_RETRY);
    while (!this.stopping.signal.aborted) {
      try {
        await this.register();
        this.done = true;
        this.options.logger.info(
          { languages: MENU_LANGUAGES, menuButton: this.options.miniAppUrl !== undefined },
          'chat command menu registered',
        );
        return;
      } catch (err: unknown) {
        const delayMs = backoff.next();
        this.options.logger.warn(
          { err: err instanceof Error ? err.message : String(err), delayMs },
          'chat command menu not registered; trying again later',
        );
        await sleep(delayMs, this.stopping.signal);
      }
    }
  }

  private async register(): Promise<void> {
    const { platform, miniAppUrl, buttonLanguage } = this.options;
    const signal = this.stopping.signal;
    await platform.call('setMyCommands', { commands: menuOf('en') }, { signal });
    for (const language of MENU_LANGUAGES) {
      await platform.call('setMyCommands', { commands: menuOf(language), language_code: language }, { signal });
    }
    if (miniAppUrl !== undefined) {
      await platform.call(
        'setChatMenuButton',
        { menu_button: { type: 'web_app', text: say(buttonLanguage, 'open_app'), web_app: { url: miniAppUrl } } },
        { signal },
      );
    }
  }
}
