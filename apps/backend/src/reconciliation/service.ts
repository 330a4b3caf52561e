import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { audit } from '../operator-audit/index.js';
import { codeOf, requireRole } from '../operators/index.js';
import type { PaymentDeps } from '../payments/index.js';
import { actionError, actOnMismatch, parseAction } from './actions.js';
import { encodeMismatch, encodeReport, encodeResolved } from './codec.js';
import { lastReportView, mismatchView, resolvedMismatches } from './history.store.js';

/** Rows per page of the resolved history when the query names no limit; a query may ask for 1 to HISTORY_MAX. */
const HISTORY_PAGE = 50;
const HISTORY_MAX = 100;

/**
 * backend.v1.ReconciliationService: the last report and the resolved history of every run for
 * viewers; one mismatch with its order and player (an action's confirmation page) and an action on
 * it for refunders, the action audited (`reconciliation_<action>`, target `mismatch:<id>`)
 * whatever the outcome.
 */
export function reconciliationService(deps: PaymentDeps): ServiceImpl<typeof backendApi.ReconciliationService> {
  const { db } = deps;
  return {
    async getReconciliationReport(_req, ctx) {
      await requireRole(db, ctx.requestHeader, 'viewer', 'reconciliation_view', deps.now());
      return { body: encodeReport(await lastReportView(db)) };
    },
    async getMismatch(req, ctx) {
      const id = decodeTable(
        req.body,
        (bb) => fb.MismatchLookup.getRootAsMismatchLookup(bb),
        (t) => t.mismatchId(),
      );
      await requireRole(db, ctx.requestHeader, 'refunder', 'reconciliation_act', deps.now());
      const row = id > 0n ? await mismatchView(db, id) : undefined;
      if (!row) throw actionError('unknown_mismatch', 'no such mismatch');
      return { body: encodeMismatch(row) };
    },
    async listResolvedMismatches(req, ctx) {
      const q = decodeTable(
        req.body,
        (bb) => fb.ResolvedMismatchQuery.getRootAsResolvedMismatchQuery(bb),
        (t) => ({ resolvedUs: t.beforeResolvedUs(), id: t.beforeId(), limit: t.limit() }),
      );
      await requireRole(db, ctx.requestHeader, 'viewer', 'reconciliation_view', deps.now());
      const limit = q.limit <= 0 ? HISTORY_PAGE : Math.min(q.limit, HISTORY_MAX);
      const cursor = q.id > 0n ? { resolvedUs: q.resolvedUs, id: q.id } : null;
      const rows = await resolvedMismatches(db, cursor, limit + 1);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const next = rows.length > limit && last && last.resolved_us !== null ? { resolvedUs: last.resolved_us, id: last.id } : null;
      return { body: encodeResolved(page, next) };
    },
    async actOnMismatch(req, ctx) {
      const input = decodeTable(
        req.body,
        (bb) => fb.ReconciliationAction.getRootAsReconciliationAction(bb),
        (t) => ({ id: t.mismatchId(), action: t.action() ?? '' }),
      );
      const operator = await requireRole(db, ctx.requestHeader, 'refunder', 'reconciliation_act', deps.now());
      const auditAs = `reconciliation_${input.action.replace(/[^a-z_]/g, '').slice(0, 20) || 'unknown'}`;
      const target = `mismatch:${input.id}`;
      try {
        const action = parseAction(input.action);
        const result = await actOnMismatch(deps, input.id, action, operator.id);
        await audit(db, { operatorId: operator.id, action: auditAs, target, outcome: result.outcome, detail: result.detail });
        deps.logger.info(
          { operatorId: String(operator.id), mismatchId: String(input.id), action, outcome: result.outcome },
          'reconciliation mismatch acted on',
        );
        return {
          body: encodeTable((b) =>
            fb.ReconciliationActionResult.createReconciliationActionResult(
              b,
              input.id,
              b.createString(result.outcome),
              b.createString(result.detail),
            ),
          ),
        };
      } catch (err: unknown) {
        await audit(db, { operatorId: operator.id, action: auditAs, target, outcome: 'failed', detail: codeOf(err) });
        throw err;
      }
    },
  };
}
