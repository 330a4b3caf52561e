import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait.js';

/** The repository root (where dist/ and node_modules/ are). */
export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The apps a fault suite runs from their esbuild bundles. */
export type App = 'backend' | 'gateway' | 'bot';

/** One output line of a service: its JSON log entry (or `{ raw }`), which run of the process wrote it, and when. */
export interface LogLine {
  at: number;
  run: number;
  entry: Record<string, unknown>;
}

/** How a process ended: its exit code or the signal that ended it. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const MAX_LOG_LINES = 200_000;

/** The bundle of an app; throws with the command that builds it when it is missing. */
export function bundlePath(app: App): string {
  const path = join(ROOT, 'dist/apps', app, 'main.js');
  if (!existsSync(path))
    throw new Error(`${path} is missing: run \`node tools/build/bundle.mjs apps/${app}\` (the faults test target builds it)`);
  return path;
}

/**
 * One service (backend, gateway or bot) run the way production runs it: `node dist/apps/<app>/main.js`
 * as a child process with its own environment, no wrapper, so a signal reaches the service itself.
 * It can be started, stopped (SIGTERM), killed (SIGKILL) and started again with the same
 * environment (same ports, same files). Every output line is kept, parsed as JSON when it is,
 * across runs; with FAULTS_VERBOSE=1 it is also echoed to stderr with the service's name.
 */
export class ServiceProcess {
  readonly logs: LogLine[] = [];
  private child: ChildProcess | undefined;
  private exit: Promise<Exit> | undefined;
  private runs = 0;

  constructor(
    readonly name: string,
    private readonly app: App,
    private readonly env: Record<string, string>,
    private readonly ready: (service: ServiceProcess) => boolean | Promise<boolean>,
    /** Another checkout's bundle to run instead of this root's (the bot A/B bench). */
    private readonly bundle?: string,
  ) {}

  /** The pid of the current run (undefined before the first start). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How many times the process was started. */
  get starts(): number {
    return this.runs;
  }

  /** True while the current run has not exited. */
  get running(): boolean {
    const c = this.child;
    return c !== undefined && c.exitCode === null && c.signalCode === null;
  }

  /** Resolves when the current run exits. */
  exited(): Promise<Exit> {
    return this.exit ?? Promise.resolve({ code: null, signal: null });
  }

  /** Starts a new run and resolves once it is ready; rejects (with its last output) if it exits or times out first. */
  async start(timeoutMs = 60_000): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    this.runs += 1;
    const run = this.runs;
    const child = spawn(process.execPath, ['--enable-source-maps', this.bundle ?? bundlePath(this.app)], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'production', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const verbose = process.env['FAULTS_VERBOSE'] === '1';
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        if (this.logs.length >= MAX_LOG_LINES) this.logs.splice(0, MAX_LOG_LINES / 10);
        this.logs.push({ at: Date.now(), run, entry: parseLine(line) });
        if (verbose) process.stderr.write(`[${this.name}#${run}] ${line}\n`);
      });
    }
    let exitedEarly: Exit | undefined;
    void this.exit.then((e) => {
      exitedEarly = e;
    });
    try {
      await waitFor(`${this.name} ready`, async () => exitedEarly !== undefined || (await this.ready(this)), timeoutMs, 25);
      if (exitedEarly) throw new Error(`${this.name} exited (${exitedEarly.code ?? exitedEarly.signal}) before it was ready`);
    } catch (err: unknown) {
      await this.kill();
      throw new Error(`${err instanceof Error ? err.message : String(err)}\n${this.tail(40)}`);
    }
  }

  /** SIGTERM (graceful stop) and wait for the exit; SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000): Promise<Exit> {
    const child = this.child;
    if (!child || !this.running) return this.exited();
    child.kill('SIGTERM');
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const exit = await this.exited();
    clearTimeout(force);
    return exit;
  }

  /** SIGKILL (a crash: no shutdown code runs) and wait for the exit. */
  async kill(): Promise<Exit> {
    const child = this.child;
    if (!child || !this.running) return this.exited();
    child.kill('SIGKILL');
    return this.exited();
  }

  /** Log entries whose `msg` equals `msg` (of every run, or of one run). */
  messages(msg: string, run?: number): Record<string, unknown>[] {
    return this.logs.filter((l) => l.entry['msg'] === msg && (run === undefined || l.run === run)).map((l) => l.entry);
  }

  /** The last `n` output lines, for failure messages. */
  tail(n: number): string {
    return this.logs
      .slice(-n)
      .map((l) => `[${this.name}#${l.run}] ${JSON.stringify(l.entry)}`)
      .join('\n');
  }
}

function parseLine(line: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // not JSON
  }
  return { raw: line };
}
