/**
 * The database module's one public entry: the connection (PostgreSQL or PGlite), prepared statements,
 * migrations, the tables' types and the unavailable-database classifier the error edge uses. Other
 * features import from here only.
 */
export { type Database, openDatabase, runPrepared } from './database.js';
export { migrateToLatest } from './migrate.js';
export {
  MISMATCH_KINDS,
  type MismatchAction,
  type MismatchKind,
  type ReconciliationMismatchesTable,
  type ReconciliationRunsTable,
  type RunOutcome,
  type RunTrigger,
} from './reconciliation-schema.js';
export type {
  AccountStatus,
  AtomKind,
  DB,
  FinishReason,
  GameVariant,
  LedgerKind,
  LedgerOperationsTable,
  OperatorRole,
  OrderRail,
  OrdersTable,
  OrderState,
  PaymentEventKind,
  PlatformKind,
  StarRefundStatus,
} from './schema.js';
export { isDatabaseUnavailable } from './unavailable.js';
