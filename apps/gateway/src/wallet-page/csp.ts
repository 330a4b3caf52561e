/**
 * Origins allowed to frame the wallet page: the mini-app hosts' web clients (Telegram Web's
 * web.telegram.org; VK on vk.com and vk.ru and their subdomains). Native Telegram and VK clients
 * open mini-apps in a webview, not a frame, so they need no entry.
 */
export const WALLET_FRAME_ANCESTORS: readonly string[] = [
  'https://web.telegram.org',
  'https://vk.com',
  'https://*.vk.com',
  'https://vk.ru',
  'https://*.vk.ru',
];

/**
 * The wallet page's Content-Security-Policy: everything from the gateway's own origin only, no
 * inline script or style and no eval (neither 'unsafe-inline' nor 'unsafe-eval' appears), no
 * plugins, no <base> rewriting, forms only to itself, framed only by the hosts above.
 */
export const WALLET_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  `frame-ancestors 'self' ${WALLET_FRAME_ANCESTORS.join(' ')}`,
].join('; ');
