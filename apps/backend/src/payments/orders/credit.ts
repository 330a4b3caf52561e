import { orderCredit } from '../../ledger/index.js';
import { CREDITABLE_STATES } from './state.js';

/**
 * The order credit: the ledger's one-statement credit (ledger/postings/credit.ts) over the states
 * this feature says a confirmed payment may still credit. Bound once, so every credit path (card
 * settle, forwarded stars payments, reconciliation) shares the compiled statements and their prepared names.
 */
export const { creditOrder, creditStatement, compileCredit } = orderCredit(CREDITABLE_STATES);
