import { spawn } from 'node:child_process';
import path from 'node:path';
import { root, tsx } from '../services.js';
import type { LoadFigures, LoadSpec } from './spec.js';

/** Runs the load generator (load/worker.ts) in its own process and returns its figures. */
export function runLoad(spec: LoadSpec): Promise<LoadFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsx, path.join(root, 'tools/bench/src/load/worker.ts')], {
      cwd: root,
      env: { PATH: process.env['PATH'] ?? '', BENCH_LOAD_SPEC: JSON.stringify(spec) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`load generator exited ${code}: ${err}`));
      else resolve(JSON.parse(out) as LoadFigures);
    });
  });
}
