import fc from 'fast-check';
import { ApiError } from '../src/http/api-error.js';
import { amountParam, idParam, parseInput } from '../src/api/validation.js';

const INT64_MAX = 9_223_372_036_854_775_807n;

describe('REST input validation', () => {
  it('every int64 id in range round-trips exactly through its decimal string', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: INT64_MAX }), (id) => {
        expect(parseInput(idParam, id.toString())).toBe(id);
      }),
    );
  });

  it('every amount 0..int64 round-trips; anything beyond int64 is refused', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: INT64_MAX }), fc.bigInt({ min: INT64_MAX + 1n, max: 10n ** 30n }), (ok, tooBig) => {
        expect(parseInput(amountParam, ok.toString())).toBe(ok);
        expect(() => parseInput(amountParam, tooBig.toString())).toThrow(ApiError);
      }),
    );
  });

  it('an id is refused unless it is the canonical decimal string of a positive int64', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.double(), fc.integer(), fc.constant(null), fc.array(fc.string()), fc.object()), (value) => {
        const canonical = typeof value === 'string' && /^[1-9][0-9]*$/.test(value) && BigInt(value) <= INT64_MAX;
        const accepted = idParam.safeParse(value).success;
        expect(accepted).toBe(canonical);
      }),
    );
  });

  it('names the field and uses the given code', () => {
    let caught: unknown;
    try {
      parseInput(idParam, '1.5', 'invalid_product_id');
    } catch (err: unknown) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect((caught as ApiError).code).toBe('invalid_product_id');
    expect((caught as ApiError).status).toBe(400);
  });
});
