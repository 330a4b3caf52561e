import { SessionCache } from '../src/auth/session-cache.js';
import type { SessionContext } from '../src/http/session.js';

const session = (accountId: bigint, expiresAt = new Date(10_000_000)): SessionContext => ({
  accountId,
  platformKind: 'direct',
  platformSubtype: 'web',
  expiresAt,
});

describe('SessionCache', () => {
  it('keeps an entry for its ttl and never past the session expiry', () => {
    let now = 1_000;
    const cache = new SessionCache(5_000, 10, () => now);
    cache.set('a', session(1n));
    cache.set('b', session(2n, new Date(3_000)));
    now = 2_999;
    expect([cache.get('a')?.accountId, cache.get('b')?.accountId]).toEqual([1n, 2n]);
    now = 3_000;
    expect(cache.get('b')).toBeUndefined();
    now = 5_999;
    expect(cache.get('a')?.accountId).toBe(1n);
    now = 6_000;
    expect(cache.get('a')).toBeUndefined();
  });

  it('is bounded, evicting the oldest entry first', () => {
    const cache = new SessionCache(60_000, 3, () => 0);
    for (const [i, t] of ['t1', 't2', 't3', 't4'].entries()) cache.set(t, session(BigInt(i)));
    expect(cache.size).toBe(3);
    expect(cache.get('t1')).toBeUndefined();
    expect(cache.get('t4')?.accountId).toBe(3n);
  });

  it('ttl 0 disables caching; delete forgets at once', () => {
    const off = new SessionCache(0, 10, () => 0);
    off.set('a', session(1n));
    expect(off.get('a')).toBeUndefined();
    const on = new SessionCache(60_000, 10, () => 0);
    on.set('a', session(1n));
    on.delete('a');
    expect(on.get('a')).toBeUndefined();
  });
});
