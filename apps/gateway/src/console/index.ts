/** The operator console under /_gm: server-rendered pages over the backend's ConsoleService. */
export { createConsoleRouter, type ConsoleOptions } from './router.js';
