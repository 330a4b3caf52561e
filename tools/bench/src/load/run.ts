import { spawn } from 'node:child_process';
import path from 'node:path';
import { root, tsx } from '../services.js';
import type { LoadFigures, LoadSpec } from './spec.js';

/**
 * Runs the load generator (load/worker.ts) in its own process and returns its figures. With
 * `onReady`, the process connects first, then `onReady` runs, then the load starts: a caller
 * measuring the servers' CPU starts its clock there, not during the generator's start-up.
 */
export function runLoad(spec: LoadSpec, onReady?: () => void): Promise<LoadFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsx, path.join(root, 'tools/bench/src/load/worker.ts')], {
      cwd: root,
      env: { PATH: process.env['PATH'] ?? '', BENCH_LOAD_SPEC: JSON.stringify(spec), ...(onReady ? { BENCH_LOAD_WAIT: '1' } : {}) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let started = onReady === undefined;
    if (started) child.stdin.end();
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
      if (!started && err.includes('ready\n')) {
        started = true;
        err = err.replace('ready\n', '');
        onReady?.();
        child.stdin.end('go\n');
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`load generator exited ${code}: ${err}`));
      else resolve(JSON.parse(out) as LoadFigures);
    });
  });
}
