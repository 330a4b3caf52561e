import type { ThemeParams } from '../launch/telegram-params.js';

/** The page's colour scheme as a host states it. */
export type Appearance = 'light' | 'dark';

/** The page's CSS variables (style.css) and the Telegram theme parameters that set each, first present wins. */
const TELEGRAM_VARIABLES: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['--bg', ['bg_color']],
  ['--card', ['section_bg_color', 'secondary_bg_color']],
  ['--fg', ['text_color']],
  ['--muted', ['hint_color', 'subtitle_text_color']],
  ['--line', ['section_separator_color']],
  ['--accent', ['button_color', 'link_color']],
  ['--accent-fg', ['button_text_color']],
  ['--debt', ['destructive_text_color']],
];

/**
 * Sets the page's light or dark palette (`data-appearance` on the root, style.css), whatever the
 * browser's own preference.
 */
export function applyAppearance(root: HTMLElement, appearance: Appearance): void {
  root.dataset['appearance'] = appearance;
}

/**
 * Applies a Telegram theme: its colours become the page's CSS variables (through the CSSOM, which
 * the CSP allows; no style attribute or sheet is written), and its background's lightness picks the
 * palette for everything the theme does not name. A later theme replaces the earlier one whole.
 */
export function applyTelegramTheme(root: HTMLElement, theme: ThemeParams): void {
  for (const [name] of TELEGRAM_VARIABLES) root.style.removeProperty(name);
  const bg = theme['bg_color'];
  if (bg) applyAppearance(root, luminance(bg) < 0.18 ? 'dark' : 'light');
  for (const [name, keys] of TELEGRAM_VARIABLES) {
    const value = keys.map((k) => theme[k]).find((v) => v !== undefined);
    if (value) root.style.setProperty(name, value);
  }
}

/** Relative luminance (0 black … 1 white) of a `#rrggbb` colour. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
