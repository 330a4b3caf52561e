/**
 * Starts the real gateway and backend for a bench the way production runs them: bundled with
 * esbuild (tools/build/bundle.mjs, rebuilt at every bench start so the figures are of the working
 * tree) and run with plain `node dist/apps/<app>/main.js`, NODE_ENV=production. A bench never
 * measures tsx's loader or a development logger.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@wordgame/testkit';

export { freePort };

/** The repository root. */
export const root = fileURLToPath(new URL('../../../', import.meta.url));
/** The tsx CLI (for the one-shot TypeScript commands a bench runs, e.g. the ledger audit). */
export const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');

/** Bundles the given apps (`backend`, `gateway`) into dist/apps/<app>/main.js. */
export function buildBundles(apps: readonly string[]): void {
  for (const app of apps) {
    const run = spawnSync(process.execPath, ['tools/build/bundle.mjs', `apps/${app}`], { cwd: root, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`bundling ${app} failed: ${run.stderr}`);
  }
}


/**
 * Runs a bundled app with NODE_ENV=production and `env`; its stderr is echoed with a prefix.
 * With BENCH_CPU_PROF set to a directory, the process writes a V8 CPU profile there on exit.
 */
export function startBundle(app: string, env: Record<string, string>): ChildProcess {
  const profDir = process.env['BENCH_CPU_PROF'];
  const flags = profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${app}-${Date.now()}.cpuprofile`] : [];
  const child = spawn(process.execPath, [...flags, path.join(root, 'dist/apps', app, 'main.js')], {
    cwd: root,
    env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'production', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[${app}] ${chunk.toString()}`));
  return child;
}

/** Polls `check` until it answers true (errors count as not yet), failing after `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch {
      // not ready yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} did not become ready`);
}

/** Waits until GET `url` answers 200. */
export function waitHealthy(url: string): Promise<void> {
  return waitFor(async () => (await fetch(url)).status === 200, url);
}

/** Sends SIGTERM to every still-running child and waits for them to exit. */
export async function stopAll(children: readonly ChildProcess[]): Promise<void> {
  const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const child of running) child.kill('SIGTERM');
  await Promise.all(running.map((c) => new Promise((r) => c.once('exit', r))));
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
