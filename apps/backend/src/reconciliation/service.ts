import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { audit } from '../operator-audit/index.js';
import { codeOf, requireRole } from '../operators/index.js';
import type { PaymentDeps } from '../payments/index.js';
import { actOnMismatch, parseAction } from './actions.js';
import { encodeReport } from './codec.js';
import { lastReport } from './store.js';

/**
 * backend.v1.ReconciliationService: the last report for viewers; an action on one mismatch for
 * refunders, audited (`reconciliation_<action>`, target `mismatch:<id>`) whatever the outcome.
 */
export function reconciliationService(deps: PaymentDeps): ServiceImpl<typeof backendApi.ReconciliationService> {
  const { db } = deps;
  return {
    async getReconciliationReport(_req, ctx) {
      await requireRole(db, ctx.requestHeader, 'viewer', 'reconciliation_view', deps.now());
      return { body: encodeReport(await lastReport(db)) };
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
