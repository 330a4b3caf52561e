/**
 * The ledger's one public entry: the pieces of the money statements (the one writer of wallet segments,
 * benefits, ledger operations and daily totals lives in postings/) and the ledger audit. Other features
 * import from here only.
 */
export {
  type BuyRow,
  type GrantAmounts,
  lockHintBenefits,
  openWallet,
  orderCredit,
  type OrderCredit,
  postMakeGood,
  type MakeGoodGrant,
  type MakeGoodPosting,
  postCodeGrant,
  postRefund,
  postReversal,
  requireSpender,
  type ReversalPosting,
  rollUpClosedDays,
  runBuy,
  runBuyUnderLocks,
  spenderRow,
  type SpendRefusal,
  spendWalletHint,
} from './postings/index.js';
export { ledgerHistory, type LedgerHistoryCursor, type LedgerHistoryRow } from './history.js';
export { ledgerSection, walletSection } from './export.js';
export type { BenefitsTable, LedgerKind, LedgerOperationsTable, WalletSegmentsTable } from './ledger.table.js';
