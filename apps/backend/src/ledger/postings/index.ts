/**
 * The one writer of money: only the modules in this folder write wallet segments, benefits, ledger
 * operations and the ledger's daily totals (test/money-writers.test.ts fails on any other writer).
 * One-statement paths (the order credit, wallet.buy) stay one statement: the statement is built
 * here and the caller runs it. Lock order of every writer: segments, then benefits, then the ledger;
 * a write the player starts takes the account row (FOR SHARE, spender.ts) before all of them.
 */
export { appendOperations, grantChips, type NewLedgerOperation } from './append.js';
export { addBenefits, lockHintBenefits, spendWalletHint } from './benefits.js';
export { BUY_STATEMENT, LOCK_ACCOUNT, type BuyRow, runBuy, runBuyUnderLocks } from './buy.js';
export { orderCredit, type CreditGuard, type CreditStatement, type OrderCredit, type Settlement } from './credit.js';
export { rollUpClosedDays } from './daily-totals.js';
export { type MakeGoodGrant, type MakeGoodPosting, postMakeGood } from './make-good.js';
export { noAdsExtended, noAdsExtendedText } from './no-ads.js';
export { type GrantAmounts, postCodeGrant, postReversal, type ReversalPosting } from './promo.js';
export { postRefund, type RefundPosting } from './refund.js';
export { lockSpender, requireSpender, spenderRow, type SpendRefusal } from './spender.js';
export { openWallet } from './wallet.js';
