import { BuyKeys, duplicatePairProblem, REPEAT_SHARE, TWICE_SHARE } from './buy-keys.js';

const REPEAT = REPEAT_SHARE / 2;
const TWICE = REPEAT_SHARE + TWICE_SHARE / 2;
const FRESH = 0.9;

describe('the soak picks an Idempotency-Key to repeat', () => {
  let n = 0;
  const fresh = () => `key-${++n}`;

  it('only once a request with it was answered 200, never while it is in flight', () => {
    const keys = new BuyKeys();
    const first = keys.plan('a', FRESH, fresh);
    expect(first.mode).toBe('fresh');
    // The first request has not been answered: a repeat now could reach the backend first and spend.
    expect(keys.plan('a', REPEAT, fresh)).toEqual({ mode: 'fresh', key: expect.not.stringMatching(`^${first.key}$`) as unknown });
    expect(keys.repeatable('a')).toBeUndefined();
    keys.answered('a', first.key);
    expect(keys.plan('a', REPEAT, fresh)).toEqual({ mode: 'repeat', key: first.key });
  });

  it('never a key whose request failed (it may never have reached the backend)', () => {
    const keys = new BuyKeys();
    const stored = keys.plan('b', FRESH, fresh);
    keys.answered('b', stored.key);
    const failed = keys.plan('b', FRESH, fresh);
    // `failed` was answered 503 or timed out: nothing records it, the last stored key stays the one repeated.
    expect(keys.plan('b', REPEAT, fresh)).toEqual({ mode: 'repeat', key: stored.key });
    expect(keys.repeatable('b')).not.toBe(failed.key);
  });

  it('keeps each customer to its own keys, and sends a fresh key twice at once one time in twenty', () => {
    const keys = new BuyKeys();
    const a = keys.plan('a', FRESH, fresh);
    keys.answered('a', a.key);
    expect(keys.plan('c', REPEAT, fresh).mode).toBe('fresh');
    const twice = keys.plan('a', TWICE, fresh);
    expect(twice.mode).toBe('twice');
    expect(twice.key).not.toBe(a.key);
  });
});

describe('two answers of one key sent at once', () => {
  const purchase = { product_id: '7', price: '3', wallet: { segments: [{ segment: 'direct', balance: '97' }] } };

  it('pass when one spent and the other replayed the same purchase, in either order', () => {
    expect(
      duplicatePairProblem([
        { ...purchase, replayed: false },
        { ...purchase, replayed: true },
      ]),
    ).toBeUndefined();
    expect(
      duplicatePairProblem([
        { ...purchase, replayed: true },
        { ...purchase, replayed: false },
      ]),
    ).toBeUndefined();
  });

  it('fail when both spent, neither did, or the two purchases differ', () => {
    expect(
      duplicatePairProblem([
        { ...purchase, replayed: false },
        { ...purchase, replayed: false },
      ]),
    ).toMatch(/one spend and one replay/);
    expect(
      duplicatePairProblem([
        { ...purchase, replayed: true },
        { ...purchase, replayed: true },
      ]),
    ).toMatch(/one spend and one replay/);
    expect(
      duplicatePairProblem([
        { ...purchase, replayed: false },
        { ...purchase, price: '6', replayed: true },
      ]),
    ).toMatch(/two different purchases/);
  });
});
