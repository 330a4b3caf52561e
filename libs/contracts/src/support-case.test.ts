import { isChargeIdShape, isSupportLanguage, supportTextProblem } from './support-case.js';

describe('support case input rules', () => {
  it('takes 1-1000 characters after trimming, counted in code points, with newlines', () => {
    expect(supportTextProblem('  hello\nworld  ')).toBeNull();
    expect(supportTextProblem('😀'.repeat(1000))).toBeNull();
    expect(supportTextProblem(` ${'я'.repeat(1000)} `)).toBeNull();
    expect(supportTextProblem('я'.repeat(1001))).toBe('text must be at most 1000 characters');
    expect(supportTextProblem(' \n\t ')).toBe('text is required');
  });

  it.each(['\u0000', '\u0007', '\t', '\r', '\u001b', '\u007f', '\u0085', '\u009f'])('refuses the control character %j', (c) => {
    expect(supportTextProblem(`a${c}b`)).toBe('text must not contain control characters other than newlines');
  });

  it('accepts a charge id of 1-256 printable ASCII characters without spaces, and en or ru', () => {
    expect(isChargeIdShape('stxAbC-123_:x.=')).toBe(true);
    expect(isChargeIdShape('c'.repeat(256))).toBe(true);
    for (const bad of ['', 'a b', 'c'.repeat(257), 'ж', 'a\nb']) expect(isChargeIdShape(bad)).toBe(false);
    expect([isSupportLanguage('en'), isSupportLanguage('ru'), isSupportLanguage('de'), isSupportLanguage('')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});
