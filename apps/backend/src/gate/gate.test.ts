import fc from 'fast-check';
import { formatPlatformHeader, parsePlatformHeader, PLATFORM_KINDS, PLATFORM_SUBTYPES, type SessionPlatform } from './context.js';
import { gate } from './gate.js';

type Row = [label: string, platform: SessionPlatform, expected: Record<string, unknown>];

const rows: Row[] = [
  [
    'telegram (host A)',
    { kind: 'telegram', subtype: null },
    {
      visibleSegments: ['telegram'],
      spendOrder: ['telegram'],
      canSpend: true,
      canPurchaseMethods: ['xtr'],
      frozen: false,
      trusted: true,
      signInProviders: ['email'],
    },
  ],
  [
    'telegram on ios',
    { kind: 'telegram', subtype: 'ios' },
    { visibleSegments: ['telegram'], spendOrder: ['telegram'], canSpend: true, canPurchaseMethods: ['xtr'], frozen: false, trusted: true },
  ],
  [
    'vk (host B) android',
    { kind: 'vk', subtype: 'android' },
    {
      visibleSegments: ['vk'],
      spendOrder: ['vk'],
      canSpend: true,
      canPurchaseMethods: ['provider'],
      frozen: false,
      trusted: true,
      signInProviders: ['email'],
    },
  ],
  ['vk web', { kind: 'vk', subtype: 'web' }, { visibleSegments: ['vk'], spendOrder: ['vk'], canSpend: true, frozen: false }],
  [
    'vk + ios frozen',
    { kind: 'vk', subtype: 'ios' },
    { visibleSegments: ['vk'], spendOrder: [], canSpend: false, canPurchaseMethods: [], fundingSegment: null, frozen: true, trusted: true },
  ],
  [
    'vk without a known subtype frozen (fail closed)',
    { kind: 'vk', subtype: null },
    { visibleSegments: ['vk'], spendOrder: [], canSpend: false, canPurchaseMethods: [], fundingSegment: null, frozen: true, trusted: true },
  ],
  [
    'direct web',
    { kind: 'direct', subtype: 'web' },
    {
      visibleSegments: ['direct', 'telegram', 'vk'],
      spendOrder: ['direct', 'telegram', 'vk'],
      canSpend: true,
      canPurchaseMethods: ['provider'],
      fundingSegment: 'direct',
      frozen: false,
      signInProviders: ['email', 'telegram', 'vk'],
    },
  ],
  [
    'direct ios',
    { kind: 'direct', subtype: 'ios' },
    { spendOrder: ['direct', 'telegram', 'vk'], canSpend: true, canPurchaseMethods: ['provider'], frozen: false },
  ],
  [
    'direct android',
    { kind: 'direct', subtype: 'android' },
    { spendOrder: ['direct', 'telegram', 'vk'], canSpend: true, canPurchaseMethods: ['provider'], frozen: false },
  ],
  [
    'direct without subtype',
    { kind: 'direct', subtype: null },
    { spendOrder: ['direct', 'telegram', 'vk'], canSpend: true, frozen: false, trusted: true },
  ],
  [
    'untrusted (no platform)',
    { kind: null, subtype: null },
    {
      visibleSegments: ['direct', 'telegram', 'vk'],
      spendOrder: [],
      canSpend: false,
      canPurchaseMethods: [],
      fundingSegment: null,
      frozen: false,
      trusted: false,
      signInProviders: ['email'],
    },
  ],
];

describe('store-compliance gate', () => {
  it.each(rows)('%s', (_label, platform, expected) => {
    expect(gate({ ...platform, emailConfirmed: true })).toMatchObject({ ...expected, emailRequired: false });
  });

  it('direct on ios, android or without a subtype is exactly direct on web: the hint is not a store context', () => {
    for (const emailConfirmed of [true, false]) {
      const web = gate({ kind: 'direct', subtype: 'web', emailConfirmed });
      for (const subtype of ['ios', 'android', null] as const) expect(gate({ kind: 'direct', subtype, emailConfirmed })).toEqual(web);
    }
  });

  it('a vk context spends or buys only with a known non-iOS subtype', () => {
    for (const subtype of [null, ...PLATFORM_SUBTYPES]) {
      const d = gate({ kind: 'vk', subtype, emailConfirmed: true });
      const open = subtype === 'android' || subtype === 'web';
      expect({ subtype, frozen: d.frozen, canSpend: d.canSpend, buys: d.canPurchaseMethods.length > 0 }).toEqual({
        subtype,
        frozen: !open,
        canSpend: open,
        buys: open,
      });
    }
  });

  it('asks for a confirmed e-mail exactly where a provider purchase is offered', () => {
    expect(gate({ kind: 'direct', subtype: 'web', emailConfirmed: false }).emailRequired).toBe(true);
    expect(gate({ kind: 'vk', subtype: 'android', emailConfirmed: false }).emailRequired).toBe(true);
    expect(gate({ kind: 'telegram', subtype: null, emailConfirmed: false }).emailRequired).toBe(false);
    expect(gate({ kind: 'vk', subtype: 'ios', emailConfirmed: false }).emailRequired).toBe(false);
    expect(gate({ kind: null, subtype: null, emailConfirmed: false }).emailRequired).toBe(false);
  });

  it('never lets a context spend a segment it cannot see, nor spend when it may not', () => {
    const platform = fc.record({
      kind: fc.constantFrom(null, ...PLATFORM_KINDS),
      subtype: fc.constantFrom(null, ...PLATFORM_SUBTYPES),
    });
    fc.assert(
      fc.property(platform, fc.boolean(), (p, emailConfirmed) => {
        const d = gate({ ...(p.kind === null ? { kind: null, subtype: null } : p), emailConfirmed });
        expect(d.spendOrder.every((s) => d.visibleSegments.includes(s))).toBe(true);
        expect(d.canSpend).toBe(d.spendOrder.length > 0);
        if (!d.trusted || d.frozen) {
          expect(d.canSpend).toBe(false);
          expect(d.canPurchaseMethods).toEqual([]);
        }
        if (p.kind === 'telegram' || p.kind === 'vk') expect(d.visibleSegments).toEqual([p.kind]);
      }),
    );
  });
});

describe('X-Platform encoding', () => {
  it('round-trips every recorded platform and refuses malformed values', () => {
    for (const kind of PLATFORM_KINDS) {
      for (const subtype of [null, ...PLATFORM_SUBTYPES]) {
        const header = formatPlatformHeader({ kind, subtype });
        expect(parsePlatformHeader(header)).toEqual({ kind, subtype });
      }
    }
    expect(formatPlatformHeader({ kind: 'vk', subtype: 'ios' })).toBe('vk;ios');
    expect(formatPlatformHeader({ kind: 'direct', subtype: null })).toBe('direct');
    expect(parsePlatformHeader('none')).toEqual({ kind: null, subtype: null });
    for (const bad of ['', 'web', 'telegram;', 'direct;web;x', 'Telegram', 'vk;mac', ';ios', 'none;web']) {
      expect(parsePlatformHeader(bad)).toBeNull();
    }
  });
});
