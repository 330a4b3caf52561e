/** Theme colours by Telegram's theme parameter names (`bg_color`, `text_color`, …), each `#rrggbb`. */
export type ThemeParams = Readonly<Record<string, string>>;

/** What Telegram's launch URL says besides the init data: the client's Mini Apps version, its platform and theme. */
export interface TelegramLaunchParams {
  /** `tgWebAppVersion`, e.g. `8.0`; `6.0` (the oldest with the methods used) when absent. */
  version: string;
  /** `tgWebAppPlatform`: `android`, `ios`, `tdesktop`, `weba`, `web`, …; empty when absent. */
  platform: string;
  themeParams: ThemeParams;
}

const COLOR = /^#[0-9a-f]{6}$/i;
const VERSION = /^\d{1,3}(\.\d{1,3}){0,2}$/;

/**
 * Reads the launch parameters Telegram puts in the launch URL's hash (`tgWebAppVersion`,
 * `tgWebAppPlatform`, `tgWebAppThemeParams` as JSON); a malformed theme or colour is left out.
 * They only style the page and pick bridge methods: nothing here is trusted for sign-in.
 */
export function telegramLaunchParams(hash: string): TelegramLaunchParams {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const version = params.get('tgWebAppVersion') ?? '';
  return {
    version: VERSION.test(version) ? version : '6.0',
    platform: params.get('tgWebAppPlatform') ?? '',
    themeParams: themeColors(params.get('tgWebAppThemeParams')),
  };
}

/** The well-formed colours of a theme given as JSON text, or as the object a `theme_changed` event carries. */
export function themeColors(theme: unknown): ThemeParams {
  let parsed: unknown = theme;
  if (typeof theme === 'string') {
    try {
      parsed = JSON.parse(theme);
    } catch {
      return {};
    }
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string' && COLOR.test(e[1])));
}
