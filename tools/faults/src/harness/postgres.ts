import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, freshDatabase as freshTestDatabase, type FreshDatabase } from '@wordgame/testkit';

export type { FreshDatabase };

/** A fresh database (prefix `faults`) on `serverUrl`, the shared test server by default. */
export function freshDatabase(serverUrl?: string): Promise<FreshDatabase> {
  return freshTestDatabase('faults', serverUrl);
}

/** The newest installed PostgreSQL server binaries (FAULTS_PG_BIN overrides). */
function pgBin(): string {
  const given = process.env['FAULTS_PG_BIN'];
  if (given) return given;
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((v) => existsSync(join(base, v, 'bin/initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql (set FAULTS_PG_BIN)');
  return join(base, newest, 'bin');
}

/** How a restart stops the server: `fast` (clean shutdown) or `immediate` (no checkpoint: crash recovery on start). */
export type StopMode = 'fast' | 'immediate';

/**
 * A private PostgreSQL cluster for one suite, so it can be restarted without touching the shared
 * server: initdb (as the `postgres` OS user when run as root, since the server refuses to run as
 * root) into a fresh directory, trust auth, listening on 127.0.0.1 at a free port with its socket in
 * the data directory. `destroy()` stops it and removes the directory.
 */
export class PrivateCluster {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly bin: string,
  ) {}

  /** Creates and starts the cluster; `settings` are extra server settings (`-c name=value` each). */
  static async create(settings: Readonly<Record<string, string>> = {}): Promise<PrivateCluster> {
    const bin = pgBin();
    const dir = mkdtempSync(join(tmpdir(), 'faults-pg-'));
    const cluster = new PrivateCluster(dir, await freePort(), bin);
    if (process.getuid?.() === 0) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      chownSync(dir, uid, gid);
    }
    cluster.pg('initdb', ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
    const extra = Object.entries(settings)
      .map(([name, value]) => ` -c ${name}=${value}`)
      .join('');
    const options = `-p ${cluster.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c max_connections=100${extra}`;
    cluster.pg('pg_ctl', ['-D', join(dir, 'data'), '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', options, 'start']);
    return cluster;
  }

  /** The server URL (the `postgres` database; freshDatabase makes the suite's own). */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /**
   * `pg_ctl restart -m <mode>` without blocking the event loop (the suite's load keeps running):
   * resolves once the server accepts connections again, with how long it took (ms).
   */
  async restart(mode: StopMode): Promise<number> {
    const started = performance.now();
    const [command, args] = this.command('pg_ctl', [
      '-D',
      join(this.dir, 'data'),
      '-l',
      join(this.dir, 'server.log'),
      '-w',
      '-t',
      '60',
      '-m',
      mode,
      'restart',
    ]);
    await promisify(execFile)(command, args, { timeout: 120_000 });
    return performance.now() - started;
  }

  /** The server's log (for failure messages). */
  log(): string {
    const path = join(this.dir, 'server.log');
    return existsSync(path) ? readFileSync(path, 'utf8') : '';
  }

  /** Stops the server (immediate) and removes the directory. */
  destroy(): void {
    try {
      this.pg('pg_ctl', ['-D', join(this.dir, 'data'), '-w', '-t', '30', '-m', 'immediate', 'stop']);
    } catch {
      // already stopped
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private pg(tool: string, args: string[]): void {
    const [command, all] = this.command(tool, args);
    execFileSync(command, all, { stdio: 'pipe', timeout: 120_000 });
  }

  /** The command line of a PostgreSQL tool, run as the `postgres` user when we are root. */
  private command(tool: string, args: string[]): [string, string[]] {
    const path = join(this.bin, tool);
    return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
  }
}
