import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import type { PaymentDeps } from '../payments/index.js';
import { operatorRefund } from './actions.js';

/**
 * backend.v1.RefundService (the operator API's refund): the caller must name a `refunder`
 * operator through x-operator-session, checked here whatever the gateway checked, and every
 * attempt is audited (operatorRefund), exactly as a console refund.
 */
export function refundService(deps: PaymentDeps): ServiceImpl<typeof backendApi.RefundService> {
  return {
    async refundOrder(req, ctx) {
      const orderId = decodeTable(
        req.body,
        (bb) => fb.OrderRefund.getRootAsOrderRefund(bb),
        (t) => t.orderId(),
      );
      const r = await operatorRefund(deps.db, deps, ctx.requestHeader, orderId);
      return {
        body: encodeTable((b) =>
          fb.OrderRefundResult.createOrderRefundResult(
            b,
            b.createString(r.orderId),
            b.createString(r.status),
            b.createString(r.refundId),
            r.amount,
            b.createString(r.currency),
          ),
        ),
      };
    },
  };
}
