/**
 * The operator audit trail's one public entry: the append-only record of what an operator (or the
 * system on an operator's rule, such as a lapsed block) did. A low module of its own so that
 * moderation, reconciliation and the console write it without depending on the operators feature.
 */
export { audit, type AuditEntry } from './operator-audit.store.js';
export type { OperatorAuditTable } from './operator-audit.table.js';
