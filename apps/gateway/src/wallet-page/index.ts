/**
 * The player's web pages the gateway serves: the built wallet page and the e-mail confirmation page.
 */
export { confirmPageRouter } from './confirm-page.js';
export { walletPageBuilt, walletPageRouter, type WalletPageLinks } from './router.js';
