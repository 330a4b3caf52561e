/**
 * The reconciliation feature's one public entry: the scheduled job (and its test overrides) and the
 * console's ReconciliationService. Other features import from here only.
 */
export type { Reconciler } from './job.js';
export { reconcilerFor, type ReconcilerOverrides } from './module.js';
export { reconciliationService } from './service.js';
export { erasePayerRefs } from './erase.store.js';
export type { ReconciliationLeaseTable, ReconciliationMismatchesTable, ReconciliationRunsTable } from './reconciliation.table.js';
