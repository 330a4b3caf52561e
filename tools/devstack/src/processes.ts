import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** One process of the stack. */
export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** A running child with its name, output prefixed line by line. */
export interface Running {
  spec: ProcessSpec;
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Its last output lines (up to 20), for the error when it exits before it is ready. */
  tail: string[];
}

/** A process's last output lines, on lines of their own after a colon ('' when it wrote nothing). */
export function lastLines(running: Running): string {
  return running.tail.length === 0 ? '' : `:\n${running.tail.join('\n')}`;
}

/**
 * Starts a child in its own process group (so a terminal Ctrl-C reaches only the supervisor, which
 * then stops each child once, in order) and prefixes its output with its name.
 */
export function startProcess(spec: ProcessSpec, cwd: string, write: (line: string) => void): Running {
  const child = spawn(spec.command, spec.args, {
    cwd,
    env: { ...process.env, ...spec.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const label = `[${spec.name}]`.padEnd(11);
  const tail: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    if (stream)
      createInterface({ input: stream }).on('line', (line) => {
        tail.push(line);
        if (tail.length > 20) tail.shift();
        write(`${label} ${line}`);
      });
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : null))));
  return { spec, child, exited, tail };
}

/** Sends SIGTERM and waits up to `graceMs`, then SIGKILLs the group. */
export async function stopProcess(running: Running, graceMs = 10_000): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  running.child.kill('SIGTERM');
  const timer = setTimeout(() => {
    if (running.child.pid) {
      try {
        process.kill(-running.child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }, graceMs);
  await running.exited;
  clearTimeout(timer);
}
