/**
 * The operators feature's one public entry: operator sessions and roles, the audit trail, the
 * operator actions the console runs (refund, catalog upsert), and the catalog admin and refund services.
 * Other features import from here only.
 */
export { codeOf, operatorRefund, operatorUpsertProduct } from './actions.js';
export { catalogAdminService } from './catalog-service.js';
export { refundService } from './refund-service.js';
export { normaliseLogin } from './operators.store.js';
export { OPERATOR_SESSION_HEADER, type OperatorSession, requireRole, resolveOperator, signIn, signOut } from './sessions.js';
export type { OperatorSessionsTable, OperatorsTable } from './operators.table.js';
