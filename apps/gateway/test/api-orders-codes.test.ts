import { Code, ConnectError } from '@connectrpc/connect';
import { fromBackendError } from '../src/http/backend-errors.js';

/** Every payment-domain machine code of the backend contract, with its Connect code and the edge's HTTP status. */
const PAYMENT_CODES: [string, Code, number][] = [
  ['invalid_rail', Code.InvalidArgument, 400],
  ['rail_not_offered', Code.FailedPrecondition, 409],
  ['not_sold_on_rail', Code.FailedPrecondition, 409],
  ['currency_not_settled', Code.FailedPrecondition, 409],
  ['email_required', Code.FailedPrecondition, 409],
  ['rail_not_configured', Code.FailedPrecondition, 503],
  ['bot_unavailable', Code.Unavailable, 503],
  ['bot_delivery_failed', Code.Unavailable, 502],
  ['provider_unavailable', Code.Unavailable, 503],
  ['payment_rejected', Code.FailedPrecondition, 409],
  ['invalid_order_id', Code.InvalidArgument, 400],
  ['unknown_order', Code.NotFound, 404],
  ['unknown_provider', Code.InvalidArgument, 404],
  ['intake_unavailable', Code.Unavailable, 503],
  ['refund_not_supported', Code.FailedPrecondition, 409],
  ['order_not_paid', Code.FailedPrecondition, 409],
  ['refund_rejected', Code.FailedPrecondition, 409],
  ['refund_in_progress', Code.Aborted, 409],
  ['purchase_forbidden', Code.PermissionDenied, 403],
  ['invalid_product_id', Code.InvalidArgument, 400],
  ['unknown_product', Code.NotFound, 404],
];

describe('payment error codes at the edge', () => {
  it.each(PAYMENT_CODES)('%s (%s) answers its own code with HTTP %s and the backend message', (code, connectCode, status) => {
    const err = new ConnectError('a short sentence for the user', connectCode, { 'x-error-code': code });
    const mapped = fromBackendError(err);
    expect(mapped).toMatchObject({ code, status, message: 'a short sentence for the user' });
  });

  it('an unnamed Unavailable stays the generic backend_unavailable, and an unknown 5xx name never leaks', () => {
    expect(fromBackendError(new ConnectError('db exploded at 10.0.0.5', Code.Unavailable))).toMatchObject({
      code: 'backend_unavailable',
      status: 503,
      message: 'the service is temporarily unavailable',
    });
    const internal = new ConnectError('stack trace', Code.Internal, { 'x-error-code': 'internal' });
    expect(fromBackendError(internal)).toMatchObject({ code: 'internal', status: 500, message: 'internal error' });
  });
});
