import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, where CI runs the checks from. */
export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** What a check printed (stdout and stderr) and its exit status. */
export interface CheckRun {
  status: number | null;
  out: string;
}

/**
 * One of tools/check's scripts, run as CI runs it: a real node process from the repository root.
 * `tree` writes `files` into a fresh src folder, runs the check on it and shows that folder as `<src>`.
 */
export function checkScript(name: string): { run: (...args: string[]) => CheckRun; tree: (files: Record<string, string>) => CheckRun } {
  const script = join(repoRoot, 'tools/check', name);
  const run = (...args: string[]): CheckRun => {
    const r = spawnSync(process.execPath, [script, ...args], { cwd: repoRoot, encoding: 'utf8' });
    return { status: r.status, out: r.stdout + r.stderr };
  };
  const tree = (files: Record<string, string>): CheckRun => {
    const dir = mkdtempSync(join(tmpdir(), `${name.replace(/\.mjs$/, '')}-`));
    try {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
      const r = run(dir);
      return { status: r.status, out: r.out.split(dir).join('<src>') };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  return { run, tree };
}
