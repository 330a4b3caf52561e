import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CpuBudgetUnavailable, CpuGroup, findCgroupRoots, removeParentGroup, sharesToWeight } from './cgroup.js';

// The budgeted replicas bench (src/budget.ts) is only meaningful if a quota really holds: this runs
// in CI (as root) on whichever cgroup version the host gives the cpu controller to, and FAILS, with
// CpuBudgetUnavailable's message, where no cpu controller is writable, so the bench cannot silently
// measure unbudgeted processes.
describe('CPU budgets (the host cgroup cpu quota)', () => {
  const parent = `wordgame-bench-test-${process.pid}`;
  let child: ChildProcess | undefined;
  let group: CpuGroup | undefined;

  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child?.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    group?.remove();
    removeParentGroup(parent);
  });

  it('holds a CPU-bound child under a 0.25-core quota to at most 0.3 core', async () => {
    // A weight well above the machine's other processes' (on the parent: its weight is what competes
    // with them), so that even on a loaded CI machine the child gets its whole quota for these 2 s
    // and the quota, not the contention, is what holds it.
    CpuGroup.create(parent, undefined).setShares(10_240);
    group = CpuGroup.create(`${parent}/spin`, 0.25);
    child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    const pid = child.pid;
    if (pid === undefined) throw new Error('the CPU-bound child did not start');
    group.add(pid);
    expect(group.pids()).toContain(pid);
    await new Promise((r) => setTimeout(r, 300));
    const cpu0 = group.usageSeconds();
    const t0 = performance.now();
    const throttled0 = group.throttling().throttledPeriods;
    await new Promise((r) => setTimeout(r, 2_000));
    const cores = (group.usageSeconds() - cpu0) / ((performance.now() - t0) / 1000);
    // Measured at most 0.3 core (the quota plus slack for accounting granularity) ...
    // eslint-disable-next-line wordgame/no-elapsed-upper-bound -- a CPU rate under a kernel quota, which load cannot raise
    expect(cores).toBeLessThanOrEqual(0.3);
    // ... and really measured and really held back: it ran (a busy loop gets some CPU even on a
    // loaded machine) and the kernel throttled it.
    expect(cores).toBeGreaterThan(0.02);
    expect(group.throttling().throttledPeriods).toBeGreaterThan(throttled0);
  });

  it('fails with a clear message where the controller cannot be written', () => {
    // A root that is a plain file, as /sys/fs/cgroup/cpu is to a process that may not write it: mkdir fails.
    const notCgroup = path.join(mkdtempSync(path.join(tmpdir(), 'not-cgroup-')), 'file');
    writeFileSync(notCgroup, '');
    expect(() => CpuGroup.create('x', 0.25, 100_000, { version: 1, cpu: notCgroup, cpuacct: notCgroup })).toThrow(CpuBudgetUnavailable);
    expect(() => CpuGroup.create('x', 0.25, 100_000, { version: 1, cpu: notCgroup, cpuacct: notCgroup })).toThrow(
      /cannot create .*file\/x/,
    );
    expect(() => findCgroupRoots('32 31 0:29 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n', () => 'hugetlb\n')).toThrow(
      /no cgroup v2 hierarchy offers `cpu` \(\/sys\/fs\/cgroup\/unified offers "hugetlb"\)/,
    );
    expect(() => findCgroupRoots('')).toThrow(/no cgroup v1 `cpu` controller and no cgroup v2 hierarchy/);
  });
});

const HYBRID = [
  '30 25 0:26 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw',
  '31 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid - cgroup cgroup rw,cpu,cpuacct',
].join('\n');
const V2_ONLY = '29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot';

describe('which cgroup version holds the cpu controller', () => {
  it('a v1 cpu controller wins on a hybrid host; a v2-only host uses the unified hierarchy when it offers cpu', () => {
    expect(findCgroupRoots(HYBRID, () => 'cpu io memory\n')).toEqual({
      version: 1,
      cpu: '/sys/fs/cgroup/cpu,cpuacct',
      cpuacct: '/sys/fs/cgroup/cpu,cpuacct',
    });
    expect(findCgroupRoots(V2_ONLY, () => 'cpuset cpu io memory hugetlb pids rdma misc\n')).toEqual({
      version: 2,
      unified: '/sys/fs/cgroup',
    });
    expect(() => findCgroupRoots(V2_ONLY, () => 'memory pids\n')).toThrow(CpuBudgetUnavailable);
  });

  it('maps v1 shares to v2 weights as systemd does: the defaults match', () => {
    expect(sharesToWeight(1024)).toBe(100);
    expect(sharesToWeight(2)).toBe(1);
    expect(sharesToWeight(262_144)).toBe(10_000);
    expect(sharesToWeight(10_240)).toBe(1000);
  });
});

// A v2 group driven through a directory laid out as the unified hierarchy's files are (the kernel's
// cgroup-v2 interface: cgroup.controllers, cgroup.subtree_control, cpu.max, cpu.weight, cpu.stat,
// cgroup.procs): what is written where, and what is read back. The kernel's enforcement of cpu.max
// is the real test above, on a host whose cpu controller is in v2.
describe('CPU budgets on cgroup v2 (the files written and read)', () => {
  function unifiedLayout(): string {
    const root = mkdtempSync(path.join(tmpdir(), 'cgroup2-'));
    writeFileSync(path.join(root, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
    writeFileSync(path.join(root, 'cgroup.subtree_control'), 'memory\n');
    mkdirSync(path.join(root, 'bench'));
    writeFileSync(path.join(root, 'bench', 'cgroup.subtree_control'), '');
    return root;
  }

  it('enables cpu down to the group, writes cpu.max and the weight, and reads usage and throttling from cpu.stat', () => {
    const unified = unifiedLayout();
    const group = CpuGroup.create('bench/spin', 0.25, 100_000, { version: 2, unified });
    expect(readFileSync(path.join(unified, 'cgroup.subtree_control'), 'utf8')).toBe('+cpu');
    expect(readFileSync(path.join(unified, 'bench', 'cgroup.subtree_control'), 'utf8')).toBe('+cpu');
    expect(readFileSync(path.join(unified, 'bench', 'spin', 'cpu.max'), 'utf8')).toBe('25000 100000');
    group.setShares(10_240);
    expect(readFileSync(path.join(unified, 'bench', 'spin', 'cpu.weight'), 'utf8')).toBe('1000');
    writeFileSync(
      path.join(unified, 'bench', 'spin', 'cpu.stat'),
      'usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\nnr_periods 40\nnr_throttled 30\nthrottled_usec 1200000\n',
    );
    expect(group.usageSeconds()).toBe(2.5);
    expect(group.throttling()).toEqual({ periods: 40, throttledPeriods: 30, throttledNs: 1_200_000_000 });
    writeFileSync(path.join(unified, 'bench', 'spin', 'cgroup.procs'), '123\n456\n');
    expect(group.pids()).toEqual([123, 456]);
  });

  it('a group that only counts sets no quota', () => {
    const unified = unifiedLayout();
    CpuGroup.create('bench/postgres', undefined, 100_000, { version: 2, unified });
    expect(() => readFileSync(path.join(unified, 'bench', 'postgres', 'cpu.max'))).toThrow(/ENOENT/);
    expect(readFileSync(path.join(unified, 'bench', 'cgroup.subtree_control'), 'utf8')).toBe('+cpu');
  });

  it('fails naming the file when the hierarchy cannot be read or written', () => {
    const unified = unifiedLayout();
    expect(() => CpuGroup.create('bench/spin', 0.25, 100_000, { version: 2, unified: path.join(unified, 'missing') })).toThrow(
      /cannot read .*missing\/cgroup.subtree_control/,
    );
    // cpu.max as a directory: the write fails as the kernel's EACCES would for a group not delegated to us.
    mkdirSync(path.join(unified, 'bench', 'spin', 'cpu.max'), { recursive: true });
    expect(() => CpuGroup.create('bench/spin', 0.25, 100_000, { version: 2, unified })).toThrow(
      /cannot write 25000 100000 to .*spin\/cpu.max/,
    );
  });
});
