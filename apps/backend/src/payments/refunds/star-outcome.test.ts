import { starRefundVerdict } from './star-outcome.js';

describe('starRefundVerdict', () => {
  it.each([
    ['platform 400: Bad Request: CHARGE_NOT_FOUND', 'refused'],
    ['platform 403: Forbidden: bot was blocked by the user', 'refused'],
    ['platform 429: Too Many Requests: retry after 5', 'unknown'],
    ['platform 500: Internal Server Error', 'unknown'],
    ['platform 502: Bad Gateway', 'unknown'],
    ['platform transport: fetch failed', 'unknown'],
    ['link_lost', 'unknown'],
    ['queue_full', 'unknown'],
    ['unknown command kind (Command field 7)', 'unknown'],
    ['user id 4000 is not valid', 'unknown'],
  ])('classifies the Ack error %j as %s', (error, kind) => {
    expect(starRefundVerdict({ status: 'error', error }, 'already_refunded').kind).toBe(kind);
  });

  it('takes a delivered Ack as refunded, noting an earlier refund', () => {
    expect(starRefundVerdict({ status: 'delivered', result: '' }, 'already_refunded')).toEqual({ kind: 'refunded', already: false });
    expect(starRefundVerdict({ status: 'delivered', result: 'already_refunded' }, 'already_refunded')).toEqual({
      kind: 'refunded',
      already: true,
    });
  });

  it.each(['timeout', 'no_bot', 'not_delivered'] as const)('takes %s as an unknown outcome (sent again later)', (status) => {
    expect(starRefundVerdict({ status }, 'already_refunded').kind).toBe('unknown');
  });
});
