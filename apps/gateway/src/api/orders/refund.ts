import { encodeTable, fb } from '@wordgame/contracts';
import type { BackendClients } from '../../backend/index.js';
import type { Operation } from '../operation.js';
import { parseInput } from '../validation.js';
import { readRefund } from './codec.js';
import { orderPath } from './params.js';
import { refundWire } from './wire.js';

/**
 * The operator's full refund of a paid card order (`orders_admin.refund`, guarded by an operator
 * session with the refunder role, checked and audited by the backend like the catalog editor). The provider is asked first and the refund is recorded
 * only once it reports succeeded: 200 with status `succeeded` (exactly one refund row), `pending`
 * (nothing recorded yet: press again, the same idempotence key returns the same refund) or
 * `canceled` (the provider refused; nothing recorded). One refund call per order is in flight: a
 * request meanwhile answers 409 `refund_in_progress` without a call. Failures use the edge's error table.
 */
export function refundOperations(backend: BackendClients): Operation[] {
  return [
    {
      name: 'orders_admin.refund',
      method: 'post',
      path: '/_gm/api/orders/:id/refund',
      auth: 'operator',
      doc: {
        tag: 'operator',
        summary: 'Refund a paid card order in full (refunder role)',
        params: orderPath,
        success: { status: 200, description: 'The refund: succeeded, pending (press again) or canceled.', body: refundWire },
        errors: [
          'invalid_order_id',
          'unknown_order',
          'order_not_paid',
          'refund_not_supported',
          'refund_rejected',
          'refund_in_progress',
          'provider_unavailable',
        ],
      },
      async handle({ req, log, call }) {
        const { id } = parseInput(orderPath, req.params, 'invalid_order_id');
        const body = encodeTable((b) => fb.OrderRefund.createOrderRefund(b, b.createString(id)));
        const result = readRefund((await backend.refund.refundOrder({ body }, call)).body);
        log.info({ orderId: id, refundStatus: result.status, refundId: result.refund_id }, 'operator refund');
        return { status: 200, body: result };
      },
    },
  ];
}
