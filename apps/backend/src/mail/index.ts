/**
 * The mail module's one public entry: the mailer MAIL_TRANSPORT selects. Other features import from here only.
 */
export { type Mailer, mailerFor } from './mailer.js';
