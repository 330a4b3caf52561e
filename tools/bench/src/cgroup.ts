/**
 * CPU budgets for bench processes through the cgroup v1 `cpu` controller (the CFS bandwidth
 * limit: `cpu.cfs_quota_us` of CPU time per `cpu.cfs_period_us`), with the `cpuacct` controller
 * counting each group's CPU time. A bench that claims per-replica budgets must really have them:
 * everything here throws CpuBudgetUnavailable, naming what is missing, rather than letting a
 * process run unbudgeted.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Thrown when a CPU budget cannot be set up or enforced (no v1 cpu controller, not writable, no CFS quota). */
export class CpuBudgetUnavailable extends Error {
  constructor(detail: string) {
    super(
      `CPU budgets unavailable: ${detail}. The budgeted bench and its test need the cgroup v1 cpu and cpuacct controllers ` +
        'mounted (e.g. /sys/fs/cgroup/cpu, /sys/fs/cgroup/cpuacct) and writable, i.e. run as root on a host with v1 (or hybrid) cgroups; ' +
        'they never run unbudgeted instead.',
    );
    this.name = 'CpuBudgetUnavailable';
  }
}

/** Where the v1 `cpu` and `cpuacct` hierarchies are mounted (the same directory when co-mounted as `cpu,cpuacct`). */
export interface CgroupRoots {
  cpu: string;
  cpuacct: string;
}

/** The mount points of the v1 cpu and cpuacct controllers, from /proc/self/mountinfo; throws CpuBudgetUnavailable when either is absent. */
export function findCgroupRoots(mountinfo = readFileSync('/proc/self/mountinfo', 'utf8')): CgroupRoots {
  let cpu: string | undefined;
  let cpuacct: string | undefined;
  for (const line of mountinfo.split('\n')) {
    // <id> <parent> <dev> <root> <mount point> <options> [optional...] - <fstype> <source> <super options>
    const [left, right] = line.split(' - ');
    const mountPoint = left?.split(' ')[4];
    const [fstype, , superOptions] = right?.split(' ') ?? [];
    if (fstype !== 'cgroup' || !mountPoint || !superOptions) continue;
    const controllers = superOptions.split(',');
    if (controllers.includes('cpu')) cpu = mountPoint;
    if (controllers.includes('cpuacct')) cpuacct = mountPoint;
  }
  if (!cpu) throw new CpuBudgetUnavailable('no cgroup v1 `cpu` controller is mounted (cgroup2-only host?)');
  if (!cpuacct) throw new CpuBudgetUnavailable('no cgroup v1 `cpuacct` controller is mounted');
  return { cpu, cpuacct };
}

/** Throttling counters of a group (cpu.stat): CFS periods, periods in which the group hit its quota, time it was held back. */
export interface Throttling {
  periods: number;
  throttledPeriods: number;
  throttledNs: number;
}

/**
 * One cgroup in both hierarchies, named `name` (a path, e.g. `wordgame-bench-123/gateway1`):
 * `cores` > 0 sets its quota to cores × period; `cores` undefined only counts its CPU (PostgreSQL,
 * NATS: measured, not budgeted). Processes join with `add(pid)` (all their threads, and their
 * future children, go with them).
 */
export class CpuGroup {
  private constructor(
    readonly name: string,
    readonly cores: number | undefined,
    private readonly cpuDir: string,
    private readonly acctDir: string,
  ) {}

  /** Creates (or reuses) the group and writes its quota; throws CpuBudgetUnavailable when the controller cannot be written. */
  static create(name: string, cores: number | undefined, periodUs = 100_000, roots: CgroupRoots = findCgroupRoots()): CpuGroup {
    const cpuDir = path.join(roots.cpu, name);
    const acctDir = path.join(roots.cpuacct, name);
    for (const dir of new Set([cpuDir, acctDir])) {
      try {
        mkdirSync(dir, { recursive: true });
      } catch (err: unknown) {
        throw new CpuBudgetUnavailable(`cannot create ${dir} (${err instanceof Error ? err.message : String(err)})`);
      }
    }
    const group = new CpuGroup(name, cores, cpuDir, acctDir);
    if (cores !== undefined) {
      if (!(cores > 0)) throw new RangeError(`a CPU budget must be > 0 cores, got ${cores}`);
      const quotaUs = Math.round(cores * periodUs);
      if (quotaUs < 1_000) throw new RangeError(`quota ${quotaUs} us is under the kernel's 1 ms minimum: raise the period`);
      group.write(cpuDir, 'cpu.cfs_period_us', String(periodUs));
      group.write(cpuDir, 'cpu.cfs_quota_us', String(quotaUs));
      const readBack = Number(readFileSync(path.join(cpuDir, 'cpu.cfs_quota_us'), 'utf8'));
      if (readBack !== quotaUs) throw new CpuBudgetUnavailable(`${cpuDir}/cpu.cfs_quota_us reads ${readBack} after writing ${quotaUs}`);
    }
    return group;
  }

  /** Moves process `pid` (all its threads) into the group, in both hierarchies, and checks it is there. */
  add(pid: number): void {
    for (const dir of new Set([this.cpuDir, this.acctDir])) this.write(dir, 'cgroup.procs', String(pid));
    const own = readFileSync(`/proc/${pid}/cgroup`, 'utf8');
    if (!own.split('\n').some((l) => /:(?:[^:]*,)?cpu(?:,[^:]*)?:/.test(l) && l.endsWith(`/${this.name}`)))
      throw new CpuBudgetUnavailable(`process ${pid} is not in ${this.name} after joining it (/proc/${pid}/cgroup: ${own.trim()})`);
  }

  /**
   * Sets the group's cpu.shares (its weight against its siblings when the CPU is contended; 1024 is
   * a plain process's). A quota caps a group; shares let it get its quota on a busy machine.
   */
  setShares(shares: number): void {
    this.write(this.cpuDir, 'cpu.shares', String(Math.round(shares)));
  }

  /** CPU seconds the group's processes have used since it was created (cpuacct.usage, ns). */
  usageSeconds(): number {
    return Number(readFileSync(path.join(this.acctDir, 'cpuacct.usage'), 'utf8')) / 1e9;
  }

  /** The group's throttling counters so far (zeros for a group without a quota). */
  throttling(): Throttling {
    const stat = readFileSync(path.join(this.cpuDir, 'cpu.stat'), 'utf8');
    const field = (key: string) => Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(stat)?.[1] ?? 0);
    return { periods: field('nr_periods'), throttledPeriods: field('nr_throttled'), throttledNs: field('throttled_time') };
  }

  /** The pids in the group now. */
  pids(): number[] {
    return readFileSync(path.join(this.cpuDir, 'cgroup.procs'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map(Number);
  }

  /**
   * Removes the group (both hierarchies). Any process still in it is moved to the hierarchy's root
   * first (the kernel refuses to remove a group with members).
   */
  remove(roots: CgroupRoots = findCgroupRoots()): void {
    for (const [dir, root] of [
      [this.cpuDir, roots.cpu],
      [this.acctDir, roots.cpuacct],
    ] as const) {
      if (!existsSync(dir)) continue;
      for (const pid of readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
        try {
          writeFileSync(path.join(root, 'cgroup.procs'), pid);
        } catch {
          // it exited meanwhile
        }
      }
      rmdirSync(dir);
    }
  }

  private write(dir: string, file: string, value: string): void {
    try {
      writeFileSync(path.join(dir, file), value);
    } catch (err: unknown) {
      throw new CpuBudgetUnavailable(
        `cannot write ${value} to ${path.join(dir, file)} (${err instanceof Error ? err.message : String(err)})`,
      );
    }
  }
}

/** Removes a parent group directory (both hierarchies) once its children are gone; missing is fine. */
export function removeParentGroup(name: string, roots: CgroupRoots = findCgroupRoots()): void {
  for (const dir of new Set([path.join(roots.cpu, name), path.join(roots.cpuacct, name)])) if (existsSync(dir)) rmdirSync(dir);
}
