/**
 * The wallet feature's one public entry: its WalletService (wallet.get, the catalog view, buy). Only
 * app.ts registers it.
 */
export { walletService } from './service.js';
export type { BuyRequestsTable } from './wallet.table.js';
