import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CpuBudgetUnavailable, CpuGroup, findCgroupRoots, removeParentGroup } from './cgroup.js';

// The budgeted replicas bench (src/budget.ts) is only meaningful if a quota really holds: this runs
// in CI (as root) and FAILS, with CpuBudgetUnavailable's message, where the cgroup v1 cpu controller
// is missing or not writable, so the bench cannot silently measure unbudgeted processes.
describe('CPU budgets (cgroup v1 cpu quota)', () => {
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
    expect(() => CpuGroup.create('x', 0.25, 100_000, { cpu: notCgroup, cpuacct: notCgroup })).toThrow(CpuBudgetUnavailable);
    expect(() => CpuGroup.create('x', 0.25, 100_000, { cpu: notCgroup, cpuacct: notCgroup })).toThrow(/cannot create .*file\/x/);
    expect(() => findCgroupRoots('32 31 0:29 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n')).toThrow(/no cgroup v1 `cpu` controller/);
  });
});
