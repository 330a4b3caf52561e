import fc from 'fast-check';
import { feeOf, formatMoney, lineTotal, parseMoney, parseQuantityMilli } from './money.js';

describe('money', () => {
  it('parses the forms YooKassa accepts to minor units: whole units, one or two decimals', () => {
    expect(parseMoney('100.00')).toBe(10000n);
    expect(parseMoney('100.0')).toBe(10000n);
    expect(parseMoney('100')).toBe(10000n);
    expect(parseMoney('100.5')).toBe(10050n);
    expect(parseMoney('0.5')).toBe(50n);
    expect(parseMoney('0.01')).toBe(1n);
    expect(parseMoney('1234567.89')).toBe(123456789n);
    expect(parseMoney('0.00')).toBe(0n);
    expect(parseMoney('0')).toBe(0n);
  });

  it.each([
    '100.000',
    '0.001',
    '1e2',
    '1E2',
    '-1.00',
    '-1',
    '+1.00',
    '01.00',
    '00',
    ' 1.00',
    '1.00 ',
    '1,00',
    '1 000.00',
    '',
    '.50',
    '1.',
    'NaN',
    'Infinity',
    '0x10',
    '١٠٠',
  ])('rejects %p', (value) => {
    expect(parseMoney(value)).toBeNull();
  });

  it('reads every two-decimal, one-decimal and whole-unit spelling of an amount as the same minor units', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }), (units) => {
        expect(parseMoney(units.toString())).toBe(units * 100n);
        expect(parseMoney(`${units.toString()}.0`)).toBe(units * 100n);
        expect(parseMoney(`${units.toString()}.00`)).toBe(units * 100n);
      }),
    );
  });

  it('formats minor units back', () => {
    expect(formatMoney(10000n)).toBe('100.00');
    expect(formatMoney(5n)).toBe('0.05');
    expect(formatMoney(0n)).toBe('0.00');
    expect(() => formatMoney(-1n)).toThrow(RangeError);
  });

  it('round-trips every amount exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 17n - 1n }), (minor) => {
        expect(parseMoney(formatMoney(minor))).toBe(minor);
      }),
    );
  });

  it('parses quantities in thousandths and computes line totals without floats', () => {
    expect(parseQuantityMilli('2')).toBe(2000n);
    expect(parseQuantityMilli(1.5)).toBe(1500n);
    expect(parseQuantityMilli('0.125')).toBe(125n);
    expect(parseQuantityMilli('1.2345')).toBeNull();
    expect(parseQuantityMilli(-1)).toBeNull();
    expect(lineTotal(3333n, 3000n)).toBe(9999n);
    expect(lineTotal(1000n, 125n)).toBe(125n);
    expect(feeOf(10000n, 350)).toBe(350n);
    expect(feeOf(1n, 350)).toBe(0n);
  });
});
