/**
 * The accounts feature's one public entry: the AccountService (sign-in, sessions, e-mail confirmation,
 * profile), password hashing the operators share, and the account-status rule the bot's chat gate and
 * payments ask. Other features import from here only; the files beside it are the feature's internals.
 */
export { hashPassword, verifyPassword } from './password.js';
export { isUniqueViolation } from './repository.js';
export { accountService } from './service.js';
export type { SessionDeps } from './sessions/open.js';
export { isChatEligible } from './status.js';
export type {
  AccountStatus,
  AccountsTable,
  EmailConfirmationsTable,
  PlatformIdentitiesTable,
  PlatformKind,
  SessionsTable,
} from './accounts.table.js';
