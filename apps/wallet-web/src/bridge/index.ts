/**
 * The Mini App hosts' bridges (Telegram through @telegram-apps/bridge, VK through
 * @vkontakte/vk-bridge), bundled into the page so the CSP stays `script-src 'self'`. The bridges
 * only style the page and open host UI: sign-in still rests on the signed launch data the backend
 * checks, never on anything a bridge reports.
 */
import type { Launch } from '../launch/context.js';
import { telegramLaunchParams } from '../launch/telegram-params.js';
import { NO_HOST, type Host } from './host.js';
import { telegramHost, telegramTransport } from './telegram.js';
import { vkHost, vkTransport } from './vk.js';

export { NO_HOST, type Host, type InvoiceStatus } from './host.js';
export { invoiceSlug } from './telegram.js';

/**
 * Connects to the host the launch names, when its transport is there: Telegram's webview proxy or
 * frame, VK's webview or frame. Otherwise (the plain web, or a launch URL opened in a browser) no
 * bridge call is made and NO_HOST is answered.
 */
export function connectHost(launch: Launch, hash: string, root: HTMLElement): Host {
  if (launch.kind === 'telegram' && telegramTransport()) return telegramHost(telegramLaunchParams(hash), root);
  if (launch.kind === 'vk' && vkTransport()) return vkHost(root);
  return NO_HOST;
}
