import { connectionCaps, fileReserve, openFileLimit } from './listeners.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            4096                 524288               files
`;

describe('openFileLimit', () => {
  it('reads the soft limit of open files, and nothing where it cannot', () => {
    expect(openFileLimit(() => LIMITS)).toBe(4_096);
    expect(openFileLimit(() => LIMITS.replace('4096   ', 'unlimited'))).toBeUndefined();
    expect(
      openFileLimit(() => {
        throw new Error('ENOENT');
      }),
    ).toBeUndefined();
    // This process's own limit, on Linux.
    expect(openFileLimit()).toBeGreaterThan(0);
  });
});

describe('connectionCaps', () => {
  const defaults = { A: 8_192, B: 512 };

  it('keeps the defaults when they fit, and lowers them in proportion when they do not', () => {
    expect(connectionCaps({ A: undefined, B: undefined }, defaults, 20_000)).toEqual({ caps: defaults, issues: [] });
    const budget = 4_096 - fileReserve(4_096);
    const { caps, issues } = connectionCaps({ A: undefined, B: undefined }, defaults, 4_096);
    expect(issues).toEqual([]);
    expect(caps.A + caps.B).toBeLessThanOrEqual(budget);
    expect(caps.A / caps.B).toBeCloseTo(16, 0);
  });

  it('takes explicit caps as they are, the unset ones share what is left, and names explicit ones that do not fit', () => {
    expect(connectionCaps({ A: 1_000, B: undefined }, defaults, 4_096).caps).toEqual({ A: 1_000, B: 512 });
    const { issues } = connectionCaps({ A: 4_000, B: undefined }, defaults, 4_096);
    expect(issues.map((i) => i.path)).toEqual([['A']]);
    expect(issues[0]?.message).toMatch(/^the connection caps \(A=4000\) must fit under the open-file limit \(4096, of which 820 are kept/);
    expect(connectionCaps({ A: 4_000, B: 1 }, defaults, 4_096).issues.map((i) => i.path)).toEqual([['A'], ['B']]);
  });

  it('trusts every cap where no limit can be read', () => {
    expect(connectionCaps({ A: 900_000, B: undefined }, defaults, null)).toEqual({ caps: { A: 900_000, B: 512 }, issues: [] });
  });
});
