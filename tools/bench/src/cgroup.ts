/**
 * CPU budgets for bench processes through the kernel's CFS bandwidth limit, on either cgroup
 * version:
 * - v1: the `cpu` controller (`cpu.cfs_quota_us` of CPU time per `cpu.cfs_period_us`, weight
 *   `cpu.shares`) with `cpuacct` counting each group's CPU time (`cpuacct.usage`, ns);
 * - v2 (the unified hierarchy, the default on current distributions): `cpu.max` ("<quota> <period>"),
 *   weight `cpu.weight`, usage and throttling in `cpu.stat` (`usage_usec`, `nr_throttled`), the
 *   `cpu` controller enabled for children through each parent's `cgroup.subtree_control`.
 * A v1 `cpu` controller wins when one is mounted (a hybrid host's unified hierarchy cannot hold the
 * controller v1 holds). A bench that claims per-replica budgets must really have them: everything
 * here throws CpuBudgetUnavailable, naming what is missing, rather than letting a process run
 * unbudgeted.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Thrown when a CPU budget cannot be set up or enforced (no cpu controller, not writable, no CFS quota). */
export class CpuBudgetUnavailable extends Error {
  constructor(detail: string) {
    super(
      `CPU budgets unavailable: ${detail}. The budgeted bench and its test need the cgroup cpu controller writable: ` +
        'cgroup v1 cpu and cpuacct mounted (e.g. /sys/fs/cgroup/cpu, /sys/fs/cgroup/cpuacct), or cgroup v2 with `cpu` in ' +
        "the unified hierarchy's cgroup.controllers; i.e. run as root (or in a delegated v2 subtree); they never run unbudgeted instead.",
    );
    this.name = 'CpuBudgetUnavailable';
  }
}

/**
 * Where the cpu controller lives: v1's `cpu` and `cpuacct` hierarchies (the same directory when
 * co-mounted as `cpu,cpuacct`), or the v2 unified hierarchy's mount point.
 */
export type CgroupRoots = { version: 1; cpu: string; cpuacct: string } | { version: 2; unified: string };

/** One line for a bench header: which controller the budgets use, and where. */
export function describeRoots(roots: CgroupRoots): string {
  return roots.version === 1
    ? `cgroup v1 cpu controller at ${roots.cpu} (cpuacct at ${roots.cpuacct})`
    : `cgroup v2 cpu controller in the unified hierarchy at ${roots.unified}`;
}

/**
 * The cpu controller's hierarchy, from /proc/self/mountinfo: v1 `cpu` and `cpuacct` when mounted,
 * else a cgroup2 mount whose cgroup.controllers lists `cpu`; throws CpuBudgetUnavailable when neither.
 */
export function findCgroupRoots(
  mountinfo = readFileSync('/proc/self/mountinfo', 'utf8'),
  controllersOf: (mountPoint: string) => string = (mountPoint) => readFileSync(path.join(mountPoint, 'cgroup.controllers'), 'utf8'),
): CgroupRoots {
  let cpu: string | undefined;
  let cpuacct: string | undefined;
  const unified: string[] = [];
  for (const line of mountinfo.split('\n')) {
    // <id> <parent> <dev> <root> <mount point> <options> [optional...] - <fstype> <source> <super options>
    const [left, right] = line.split(' - ');
    const mountPoint = left?.split(' ')[4];
    const [fstype, , superOptions] = right?.split(' ') ?? [];
    if (!mountPoint) continue;
    if (fstype === 'cgroup2') unified.push(mountPoint);
    if (fstype !== 'cgroup' || !superOptions) continue;
    const controllers = superOptions.split(',');
    if (controllers.includes('cpu')) cpu = mountPoint;
    if (controllers.includes('cpuacct')) cpuacct = mountPoint;
  }
  if (cpu && cpuacct) return { version: 1, cpu, cpuacct };
  if (cpu) throw new CpuBudgetUnavailable('a cgroup v1 `cpu` controller is mounted but no `cpuacct` to count with');
  const seen: string[] = [];
  for (const mountPoint of unified) {
    let controllers: string;
    try {
      controllers = controllersOf(mountPoint);
    } catch {
      continue;
    }
    if (controllers.trim().split(/\s+/).includes('cpu')) return { version: 2, unified: mountPoint };
    seen.push(`${mountPoint} offers "${controllers.trim()}"`);
  }
  throw new CpuBudgetUnavailable(
    unified.length === 0
      ? 'no cgroup v1 `cpu` controller and no cgroup v2 hierarchy is mounted'
      : `no cgroup v1 \`cpu\` controller, and no cgroup v2 hierarchy offers \`cpu\` (${seen.join('; ') || 'unreadable'})`,
  );
}

/** Throttling counters of a group (cpu.stat): CFS periods, periods in which the group hit its quota, time it was held back. */
export interface Throttling {
  periods: number;
  throttledPeriods: number;
  throttledNs: number;
}

/** v1 cpu.shares as v2 cpu.weight, as systemd maps CPUShares to CPUWeight: the defaults match (1024 shares = weight 100). */
export function sharesToWeight(shares: number): number {
  return Math.min(10_000, Math.max(1, Math.round((shares * 100) / 1024)));
}

/**
 * One cgroup, named `name` (a path, e.g. `wordgame-bench-123/gateway1`): `cores` > 0 sets its quota
 * to cores × period; `cores` undefined only counts its CPU (PostgreSQL, NATS: measured, not
 * budgeted). Processes join with `add(pid)` (all their threads, and their future children, go with
 * them). On v2 each ancestor below the mount gets `+cpu` in its cgroup.subtree_control (a parent
 * holds groups, never processes, as v2 requires).
 */
export class CpuGroup {
  private constructor(
    readonly name: string,
    readonly cores: number | undefined,
    private readonly roots: CgroupRoots,
    /** v1: the cpu and cpuacct directories; v2: the one directory (twice). */
    private readonly cpuDir: string,
    private readonly acctDir: string,
  ) {}

  /** Creates (or reuses) the group and writes its quota; throws CpuBudgetUnavailable when the controller cannot be written. */
  static create(name: string, cores: number | undefined, periodUs = 100_000, roots: CgroupRoots = findCgroupRoots()): CpuGroup {
    const cpuDir = path.join(roots.version === 1 ? roots.cpu : roots.unified, name);
    const acctDir = roots.version === 1 ? path.join(roots.cpuacct, name) : cpuDir;
    if (roots.version === 2) enableCpuDownTo(roots.unified, name);
    for (const dir of new Set([cpuDir, acctDir])) {
      try {
        mkdirSync(dir, { recursive: true });
      } catch (err: unknown) {
        throw new CpuBudgetUnavailable(`cannot create ${dir} (${err instanceof Error ? err.message : String(err)})`);
      }
    }
    const group = new CpuGroup(name, cores, roots, cpuDir, acctDir);
    if (cores !== undefined) {
      if (!(cores > 0)) throw new RangeError(`a CPU budget must be > 0 cores, got ${cores}`);
      const quotaUs = Math.round(cores * periodUs);
      if (quotaUs < 1_000) throw new RangeError(`quota ${quotaUs} us is under the kernel's 1 ms minimum: raise the period`);
      if (roots.version === 1) {
        writeControl(cpuDir, 'cpu.cfs_period_us', String(periodUs));
        writeControl(cpuDir, 'cpu.cfs_quota_us', String(quotaUs));
        const readBack = Number(readFileSync(path.join(cpuDir, 'cpu.cfs_quota_us'), 'utf8'));
        if (readBack !== quotaUs) throw new CpuBudgetUnavailable(`${cpuDir}/cpu.cfs_quota_us reads ${readBack} after writing ${quotaUs}`);
      } else {
        writeControl(cpuDir, 'cpu.max', `${quotaUs} ${periodUs}`);
        const readBack = readFileSync(path.join(cpuDir, 'cpu.max'), 'utf8').trim();
        if (readBack !== `${quotaUs} ${periodUs}`)
          throw new CpuBudgetUnavailable(`${cpuDir}/cpu.max reads "${readBack}" after writing "${quotaUs} ${periodUs}"`);
      }
    }
    return group;
  }

  /** Moves process `pid` (all its threads) into the group (in both v1 hierarchies) and checks it is there. */
  add(pid: number): void {
    for (const dir of new Set([this.cpuDir, this.acctDir])) writeControl(dir, 'cgroup.procs', String(pid));
    const own = readFileSync(`/proc/${pid}/cgroup`, 'utf8');
    const inGroup =
      this.roots.version === 1
        ? own.split('\n').some((l) => /:(?:[^:]*,)?cpu(?:,[^:]*)?:/.test(l) && l.endsWith(`/${this.name}`))
        : own.split('\n').some((l) => l.startsWith('0::') && l.endsWith(`/${this.name}`));
    if (!inGroup)
      throw new CpuBudgetUnavailable(`process ${pid} is not in ${this.name} after joining it (/proc/${pid}/cgroup: ${own.trim()})`);
  }

  /**
   * Sets the group's weight against its siblings when the CPU is contended (v1 cpu.shares, 1024 a
   * plain process's; on v2 the same weight as cpu.weight). A quota caps a group; the weight lets it
   * get its quota on a busy machine.
   */
  setShares(shares: number): void {
    if (this.roots.version === 1) writeControl(this.cpuDir, 'cpu.shares', String(Math.round(shares)));
    else writeControl(this.cpuDir, 'cpu.weight', String(sharesToWeight(shares)));
  }

  /** CPU seconds the group's processes have used since it was created (v1 cpuacct.usage ns; v2 cpu.stat usage_usec). */
  usageSeconds(): number {
    if (this.roots.version === 1) return Number(readFileSync(path.join(this.acctDir, 'cpuacct.usage'), 'utf8')) / 1e9;
    return this.stat('usage_usec') / 1e6;
  }

  /** The group's throttling counters so far (zeros for a group without a quota). */
  throttling(): Throttling {
    if (this.roots.version === 1)
      return { periods: this.stat('nr_periods'), throttledPeriods: this.stat('nr_throttled'), throttledNs: this.stat('throttled_time') };
    return {
      periods: this.stat('nr_periods'),
      throttledPeriods: this.stat('nr_throttled'),
      throttledNs: this.stat('throttled_usec') * 1000,
    };
  }

  /** The pids in the group now. */
  pids(): number[] {
    return readFileSync(path.join(this.cpuDir, 'cgroup.procs'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map(Number);
  }

  /**
   * Removes the group (both v1 hierarchies). Any process still in it is moved to the hierarchy's
   * root first (the kernel refuses to remove a group with members).
   */
  remove(): void {
    const dirs: (readonly [string, string])[] =
      this.roots.version === 1
        ? [
            [this.cpuDir, this.roots.cpu],
            [this.acctDir, this.roots.cpuacct],
          ]
        : [[this.cpuDir, this.roots.unified]];
    for (const [dir, root] of dirs) {
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

  private stat(key: string): number {
    const stat = readFileSync(path.join(this.cpuDir, 'cpu.stat'), 'utf8');
    return Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(stat)?.[1] ?? 0);
  }
}

/** v2: `+cpu` in the subtree_control of the mount and of every ancestor of `name` (created when missing). */
function enableCpuDownTo(unified: string, name: string): void {
  const parts = name.split('/').filter(Boolean);
  let dir = unified;
  for (const part of parts) {
    let control: string;
    try {
      control = readFileSync(path.join(dir, 'cgroup.subtree_control'), 'utf8');
    } catch (err: unknown) {
      throw new CpuBudgetUnavailable(
        `cannot read ${path.join(dir, 'cgroup.subtree_control')} (${err instanceof Error ? err.message : String(err)})`,
      );
    }
    if (!control.trim().split(/\s+/).includes('cpu')) writeControl(dir, 'cgroup.subtree_control', '+cpu');
    dir = path.join(dir, part);
    if (dir === path.join(unified, name)) break;
    try {
      mkdirSync(dir, { recursive: true });
    } catch (err: unknown) {
      throw new CpuBudgetUnavailable(`cannot create ${dir} (${err instanceof Error ? err.message : String(err)})`);
    }
  }
}

function writeControl(dir: string, file: string, value: string): void {
  try {
    writeFileSync(path.join(dir, file), value);
  } catch (err: unknown) {
    throw new CpuBudgetUnavailable(
      `cannot write ${value} to ${path.join(dir, file)} (${err instanceof Error ? err.message : String(err)})`,
    );
  }
}

/** Removes a parent group directory (both v1 hierarchies) once its children are gone; missing is fine. */
export function removeParentGroup(name: string, roots: CgroupRoots = findCgroupRoots()): void {
  const dirs = roots.version === 1 ? [path.join(roots.cpu, name), path.join(roots.cpuacct, name)] : [path.join(roots.unified, name)];
  for (const dir of new Set(dirs)) if (existsSync(dir)) rmdirSync(dir);
}
