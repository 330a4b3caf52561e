import { hasWebviewProxy, isIframe, on, postEvent, supports, type MethodName } from '@telegram-apps/bridge';
import { themeColors, type TelegramLaunchParams } from '../launch/telegram-params.js';
import type { Host, InvoiceStatus } from './host.js';
import { applyTelegramTheme } from './theme.js';

const STATUSES: ReadonlySet<string> = new Set<InvoiceStatus>(['paid', 'cancelled', 'failed', 'pending']);
const INVOICE_HOSTS: ReadonlySet<string> = new Set(['t.me', 'telegram.me']);

/**
 * The slug of a Telegram invoice link (`https://t.me/$<slug>` as createInvoiceLink mints it, or
 * `https://t.me/invoice/<slug>`), which `web_app_open_invoice` takes; null for any other link.
 */
export function invoiceSlug(link: string): string | null {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || !INVOICE_HOSTS.has(url.hostname)) return null;
  const match = /^\/(?:\$|invoice\/)([A-Za-z0-9_-]+)$/.exec(url.pathname);
  return match?.[1] ?? null;
}

/** Whether Telegram can hear the page: the mobile clients' webview proxy, or a frame (the web clients). */
export function telegramTransport(): boolean {
  return hasWebviewProxy(window) || isIframe();
}

/**
 * Telegram's Mini App bridge through @telegram-apps/bridge (postEvent and events over whichever
 * transport the client has). On start: `web_app_ready`, `web_app_expand`, the launch theme applied
 * and every `theme_changed` after it. A method the client's version lacks is not called.
 */
export function telegramHost(params: TelegramLaunchParams, root: HTMLElement): Host {
  const can = (method: MethodName) => supports(method, params.version);
  postEvent('web_app_ready');
  postEvent('web_app_expand');
  applyTelegramTheme(root, params.themeParams);
  on('theme_changed', (event) => applyTelegramTheme(root, themeColors(event.theme_params)));

  let back: (() => void) | null = null;
  on('back_button_pressed', () => back?.());
  let stopInvoice: (() => void) | undefined;

  return {
    kind: 'telegram',
    openInvoice(link, onClosed) {
      const slug = invoiceSlug(link);
      if (slug === null || !can('web_app_open_invoice')) return false;
      stopInvoice?.();
      stopInvoice = on('invoice_closed', (event) => {
        if (event.slug === slug && STATUSES.has(event.status)) onClosed(event.status as InvoiceStatus);
      });
      postEvent('web_app_open_invoice', { slug });
      return true;
    },
    setBack(onBack) {
      const shown = back !== null;
      back = onBack;
      if (shown !== (onBack !== null) && can('web_app_setup_back_button'))
        postEvent('web_app_setup_back_button', { is_visible: onBack !== null });
    },
    offerSettings(open) {
      if (!can('web_app_setup_settings_button')) return false;
      on('settings_button_pressed', open);
      postEvent('web_app_setup_settings_button', { is_visible: true });
      return true;
    },
    openLink(url) {
      postEvent('web_app_open_link', { url });
      return true;
    },
  };
}
