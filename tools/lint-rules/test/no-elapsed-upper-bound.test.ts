import { RuleTester } from 'eslint';
import { noElapsedUpperBound } from '../src/no-elapsed-upper-bound.js';

const tester = new RuleTester({ languageOptions: { ecmaVersion: 2022, sourceType: 'module' } });
const error = { messageId: 'elapsed' };

// RuleTester registers one jest test per case (it uses the global describe/it).
describe('no-elapsed-upper-bound: upper bounds on measured time flagged; lower bounds, counts and fake clocks not', () => {
  {
    tester.run('no-elapsed-upper-bound', noElapsedUpperBound, {
      valid: [
        'const t0 = performance.now(); expect(performance.now() - t0).toBeGreaterThanOrEqual(500);',
        'const started = Date.now(); const ms = Date.now() - started; expect(ms).toBeGreaterThan(100);',
        'expect(polls.length).toBeLessThanOrEqual(12);',
        'expect(made - 1).toBeLessThan(limit);',
        'const t = clock.now(); expect(clock.now() - t).toBeLessThan(1000);',
        'expect(delayMs).toBeLessThanOrEqual(5000);',
        'let start = Date.now(); start = 0; const ms = other - start; expect(count).toBeLessThan(3);',
      ],
      invalid: [
        { code: 'const t0 = performance.now(); expect(performance.now() - t0).toBeLessThan(250);', errors: [error] },
        { code: 'const started = Date.now(); const ms = Date.now() - started; expect(ms).toBeLessThanOrEqual(780);', errors: [error] },
        { code: 'expect(Date.parse(b.at) - Date.parse(a.at)).toBeLessThan(450);', errors: [error] },
        { code: 'const t0 = Date.now(); const took = Date.now() - t0; expect(took).not.toBeGreaterThan(2000);', errors: [error] },
        { code: 'expect(end.getTime() - start.getTime()).toBeLessThan(1000);', errors: [error] },
        { code: 'expect(result.elapsedMs).toBeLessThan(3000);', errors: [error] },
        {
          code: 'const t0 = performance.now(); const d = performance.now() - t0; const s = d / 1000; expect(s).toBeLessThan(2);',
          errors: [error],
        },
        {
          code: 'const t0 = Date.now(); await run(); await expect(Promise.resolve(Date.now() - t0)).resolves.toBeLessThan(5);',
          errors: [error],
        },
      ],
    });
  }
});
