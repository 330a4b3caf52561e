/**
 * The support desk: the cases players open from the bot (/paysupport) about a stars charge or in
 * general, their evidence and history, and what operators do with them in the console
 * (`/_gm/support`). Owns `support_cases` and `support_case_events`. Its entries: the bot intake's
 * ListStarCharges and OpenSupportCase, the console's HelpdeskService, the open-case metrics, and
 * the erasure of case texts that an account deletion calls in its transaction.
 */
export { helpdeskService, type HelpdeskConsoleDeps } from './console.js';
export { supportIntakeMethods, type SupportIntakeDeps } from './intake.js';
export { CASE_AGE_BUCKETS, registerSupportMetrics } from './metrics.js';
export { eraseCaseTextsOf, supportCasesSection } from './helpdesk.store.js';
export type { SupportCaseEventsTable, SupportCasesTable } from './helpdesk.table.js';
