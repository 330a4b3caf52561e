/**
 * The accounts feature's one public entry: the AccountService (sign-in, sessions, e-mail confirmation,
 * profile), password hashing the operators share, the account-status rule the bot's chat gate and
 * payments ask, and the writes of the account row that other features decide (moderation's status
 * and mute, the soft delete): accounts is the one writer of its tables, the others call these inside
 * their own transaction. Other features import from here only; the files beside it are the
 * feature's internals.
 */
export { identitiesSection, profileSection, sessionsSection } from './export.store.js';
export { hashPassword, verifyPassword } from './password.js';
export {
  type AccountErasure,
  contactChannelsOf,
  type ContactChannels,
  isUniqueViolation,
  liftLapsedBlocks,
  lockAccountStatus,
  markAccountDeleted,
  type ModerationUpdate,
  telegramIdOf,
  updateModeration,
} from './accounts.store.js';
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
