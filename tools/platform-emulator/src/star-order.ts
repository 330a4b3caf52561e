/**
 * The order getStarTransactions answers in. The Bot API documents "in chronological order" (oldest
 * first, `offset` counting from the oldest): that is the default. `newest_first` is what this
 * emulator answered before, kept as a switch so callers can be held against both.
 */
export type StarTransactionsOrder = 'oldest_first' | 'newest_first';

/** Both orders, for schemas and error texts. */
export const STAR_TRANSACTIONS_ORDERS: readonly StarTransactionsOrder[] = ['oldest_first', 'newest_first'];
