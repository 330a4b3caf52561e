/**
 * The privacy feature's one public entry: account deletion with the erasure of the account's
 * personal data everywhere the backend keeps it, the durable queue and loop that tell the bot to
 * forget a deleted user, and the PrivacyService (the player's data export; an operator's export and
 * deletion on a player's request). Social (the player's own DeleteAccount) and app.ts import from
 * here only.
 */
export { deleteAccount, type Deletion, type DeletionBy, type DeletionDeps, softDeleteAccount } from './delete-account.js';
export { EXPORT_SECTIONS, exportAccount, type ExportSection } from './export.js';
export { createForgetLoop, type ForgetLoop } from './forget-loop.js';
export { registerForgetGauges } from './metrics.js';
export { privacyService } from './service.js';
export type { BotForgetsTable } from './privacy.table.js';
