import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** A service started as a child process from its TypeScript entry (through tsx). */
export interface ChildService {
  readonly pid: number;
  /** What `ready` picked from the log line that said the service is up. */
  readonly ready: Record<string, unknown>;
  stop(): Promise<void>;
}

/**
 * Starts `entry` (a path under the repository root) with `node --import tsx` and exactly `env`
 * (plus PATH), and resolves once a JSON log line satisfies `isReady`; rejects when the process
 * exits first or `timeoutMs` passes.
 */
export function startChildService(
  root: string,
  entry: string,
  env: Record<string, string>,
  isReady: (line: Record<string, unknown>) => boolean,
  timeoutMs = 60_000,
): Promise<ChildService> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, entry)], {
    cwd: root,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${entry} was not ready within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    createInterface({ input: child.stdout }).on('line', (text) => {
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return;
      }
      if (!isReady(line)) return;
      clearTimeout(timer);
      resolve({ pid: child.pid as number, ready: line, stop });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${String(code)} before it was ready\n${stderr}`));
    });
  });
}
