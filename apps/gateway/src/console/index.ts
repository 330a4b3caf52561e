/**
 * The operator console under /_gm: server-rendered pages over the backend's ConsoleService, and
 * the escaping HTML template other server-rendered pages use.
 */
export { html, raw, SafeHtml } from './html.js';
export { createConsoleRouter, type ConsoleOptions } from './router.js';
