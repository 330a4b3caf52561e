import bridge from '@vkontakte/vk-bridge';
import type { Host } from './host.js';
import { applyAppearance, type Appearance } from './theme.js';

const DARK_SCHEMES: ReadonlySet<string> = new Set(['space_gray', 'vkcom_dark', 'client_dark']);
const LIGHT_SCHEMES: ReadonlySet<string> = new Set(['bright_light', 'vkcom_light', 'client_light']);

/** The palette a VKWebAppUpdateConfig states: its `appearance`, else what its `scheme` implies; null when neither says. */
export function vkAppearance(config: unknown): Appearance | null {
  if (typeof config !== 'object' || config === null) return null;
  const { appearance, scheme } = config as { appearance?: unknown; scheme?: unknown };
  if (appearance === 'light' || appearance === 'dark') return appearance;
  if (typeof scheme === 'string' && DARK_SCHEMES.has(scheme)) return 'dark';
  if (typeof scheme === 'string' && LIGHT_SCHEMES.has(scheme)) return 'light';
  return null;
}

/** Whether a VK client can hear the page: a native webview, or a frame (VK's web clients). */
export function vkTransport(): boolean {
  return bridge.isEmbedded();
}

/**
 * VK's Mini App bridge through @vkontakte/vk-bridge: `VKWebAppInit` on start (the VK client waits
 * for it), then the appearance of every VKWebAppUpdateConfig applied. VK has no invoice sheet,
 * back or settings button the page uses (its store rules stay the backend's).
 */
export function vkHost(root: HTMLElement): Host {
  bridge.subscribe((event) => {
    if (event.detail?.type !== 'VKWebAppUpdateConfig') return;
    const appearance = vkAppearance(event.detail.data);
    if (appearance) applyAppearance(root, appearance);
  });
  bridge.send('VKWebAppInit').catch(() => undefined);
  return { kind: 'vk', openInvoice: () => false, setBack: () => undefined, offerSettings: () => false, openLink: () => false };
}
