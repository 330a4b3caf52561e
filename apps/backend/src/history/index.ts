/**
 * The player's history feature's one public entry: wallet.history (GetHistory of WalletService),
 * the caller's orders and ledger operations merged newest first over the payments and ledger
 * stores. Only app.ts registers it.
 */
export { historyMethods } from './service.js';
export { historyPage, type HistoryEntry, type HistoryPage } from './feed.js';
