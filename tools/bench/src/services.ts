/**
 * Starts the real services for a bench the way production runs them: bundled with esbuild
 * (tools/build/bundle.mjs, rebuilt at every bench start so the figures are of the working tree)
 * and run with plain `node dist/<dir>/main.js` (dist/apps/backend, dist/tools/provider-emulator),
 * NODE_ENV=production, one process each. A bench never measures tsx's loader or a development
 * logger.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEV_BOT_CLIENT_NAME, DEV_POLICY_LINKS, freePort, TEST_RATE_LIMITS, TEST_SERVICE_TOKENS, type DevCerts } from '@wordgame/testkit';

export { freePort };

/** The repository root. */
export const root = fileURLToPath(new URL('../../../', import.meta.url));
/** The tsx CLI (for the one-shot TypeScript commands a bench runs, e.g. the ledger audit). */
export const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');

/** The source folder of a bundle name: `backend` is apps/backend; a path such as `tools/platform-emulator` stays as it is. */
function sourceDir(app: string): string {
  return app.includes('/') ? app : `apps/${app}`;
}

/** Bundles the given apps (`backend`, `gateway`, `bot`, or a path like `tools/provider-emulator`) into dist/<dir>/main.js. */
export function buildBundles(apps: readonly string[]): void {
  for (const app of apps) {
    const run = spawnSync(process.execPath, ['tools/build/bundle.mjs', sourceDir(app)], { cwd: root, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`bundling ${app} failed: ${run.stderr}`);
  }
}

/**
 * Runs a bundled app with NODE_ENV=production and `env`; its stderr is echoed with a prefix.
 * With BENCH_CPU_PROF set to a directory, the process writes a V8 CPU profile there on exit.
 */
export function startBundle(app: string, env: Record<string, string>, options: { inspect?: boolean } = {}): ChildProcess {
  const profDir = process.env['BENCH_CPU_PROF'];
  const name = path.basename(app);
  const flags = profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`] : [];
  if (options.inspect) flags.push('--inspect=127.0.0.1:0');
  const child = spawn(process.execPath, [...flags, path.join(root, 'dist', sourceDir(app), 'main.js')], {
    cwd: root,
    env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'production', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (options.inspect) {
    inspectors.set(
      child,
      new Promise<string>((resolve, reject) => {
        let seen = '';
        const onData = (chunk: Buffer) => {
          seen += chunk.toString();
          const url = /Debugger listening on (ws:\/\/\S+)/.exec(seen)?.[1];
          if (url) {
            child.stderr?.off('data', onData);
            resolve(url);
          }
        };
        child.stderr?.on('data', onData);
        child.once('exit', () => reject(new Error(`${name} exited before its inspector listened`)));
      }),
    );
    // A process that dies is reported by the caller; the rejection is only for a waiting caller.
    inspectors.get(child)?.catch(() => undefined);
  }
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[${name}] ${chunk.toString()}`));
  return child;
}

const inspectors = new WeakMap<ChildProcess, Promise<string>>();

/** The inspector WebSocket URL of a process started with `startBundle(..., { inspect: true })`. */
export function inspectorUrl(child: ChildProcess): Promise<string> {
  const url = inspectors.get(child);
  if (!url) return Promise.reject(new Error('process was not started with its inspector'));
  return url;
}

/**
 * Polls `check` until it answers true (errors count as not yet), failing after `timeoutMs`, or at
 * once when `gone` names a reason to stop waiting (a process the check depends on has exited).
 */
export async function waitFor(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 90_000,
  gone?: () => string | undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const reason = gone?.();
    if (reason) throw new Error(`${what} will not become ready: ${reason}`);
    try {
      if (await check()) return;
    } catch {
      // not ready yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} did not become ready`);
}

/** Waits until GET `url` answers 200 (see `waitFor` for `gone`). */
export function waitHealthy(url: string, gone?: () => string | undefined): Promise<void> {
  return waitFor(async () => (await fetch(url)).status === 200, url, 90_000, gone);
}

/** Sends SIGTERM to every still-running child and waits for them to exit; one still running after `graceMs` gets SIGKILL. */
export async function stopAll(children: readonly ChildProcess[], graceMs = 10_000): Promise<void> {
  const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
  const exited = running.map((c) => new Promise((r) => c.once('exit', r)));
  for (const child of running) child.kill('SIGTERM');
  const timer = setTimeout(() => {
    for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }, graceMs);
  await Promise.all(exited);
  clearTimeout(timer);
}

/** Resident set size of a process in KiB (Linux /proc/<pid>/status). */
export function rssKiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
}

/** The 1-minute load average and the CPU count, for printing next to every figure. */
export function loadLine(): string {
  const [one, five] = readFileSync('/proc/loadavg', 'utf8').split(' ');
  return `load average ${one ?? '?'} (1 min) ${five ?? '?'} (5 min)`;
}

/** What the ledger audit (apps/backend/src/ledger/audit-cli.ts) found: `problems` is NaN when it did not run to a report. */
export interface AuditOutcome {
  clean: boolean;
  problems: number;
  output: string;
}

/** Runs the ledger audit against `dbUrl`: every segment balance equals its ledger sum, benefits match their grants. */
export function runAudit(dbUrl: string): AuditOutcome {
  const run = spawnSync(process.execPath, [tsx, 'apps/backend/src/ledger/audit-cli.ts'], {
    cwd: root,
    env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: dbUrl },
    encoding: 'utf8',
  });
  let problems = Number.NaN;
  try {
    const report = JSON.parse(run.stdout) as { problems?: unknown };
    if (Array.isArray(report.problems)) problems = report.problems.length;
  } catch {
    // no report: problems stays NaN
  }
  return { clean: run.status === 0 && problems === 0, problems, output: `${run.stdout}${run.stderr}` };
}

/** The ports a bench gateway listens on. */
export interface GatewayPorts {
  http: number;
  botlink: number;
  internal: number;
  /** The `/metrics` listener; absent = an ephemeral port nobody scrapes. */
  metrics?: number;
}

/**
 * The environment of a bench gateway: its backend, its ports (metrics on its own listener), the dev certificates for the
 * bot-link and the dev bot's name, the (fixed, loopback-only) service tokens.
 */
export function gatewayEnv(backendUrl: string, ports: GatewayPorts, certs: DevCerts): Record<string, string> {
  return {
    ...TEST_SERVICE_TOKENS,
    BOTLINK_ALLOWED_CLIENTS: DEV_BOT_CLIENT_NAME,
    ...DEV_POLICY_LINKS,
    BACKEND_URL: backendUrl,
    GATEWAY_HTTP_PORT: String(ports.http),
    BOTLINK_PORT: String(ports.botlink),
    GATEWAY_INTERNAL_PORT: String(ports.internal),
    GATEWAY_METRICS_PORT: String(ports.metrics ?? 0),
    BOTLINK_TLS_CA: certs.ca.cert,
    BOTLINK_TLS_CERT: certs.gateway.cert,
    BOTLINK_TLS_KEY: certs.gateway.key,
  };
}

/**
 * The environment of a bench backend with nothing running beside the requests it is sent: no
 * seeded catalog, no reaper or moderation loop, a throwaway dev mailbox, and rate limits the load
 * cannot reach (it signs in and orders fast from one address).
 */
export function quietBackendEnv(dbUrl: string, port: number, internalPort: number, poolMax: string): Record<string, string> {
  return {
    ...TEST_SERVICE_TOKENS,
    ...TEST_RATE_LIMITS,
    DATABASE_URL: dbUrl,
    BACKEND_PORT: String(port),
    BACKEND_METRICS_PORT: '0',
    BACKEND_SEED_CATALOG: 'false',
    DB_POOL_MAX: poolMax,
    REAPER_INTERVAL_MS: '0',
    MODERATION_LAPSE_INTERVAL_MS: '0',
    GATEWAY_INTERNAL_URL: `http://127.0.0.1:${internalPort}`,
    MAIL_DEV_DIR: mkdtempSync(path.join(tmpdir(), 'bench-mail-')),
  };
}
