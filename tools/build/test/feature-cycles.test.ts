import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const script = join(root, 'tools/check/feature-cycles.mjs');

/** Runs the check as CI does (a real node process) from the repository root. */
function run(...args: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
}

/** A src folder with three features: a -> b -> c, plus whatever extra files the case adds. */
function fixture(extra: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'feature-cycles-'));
  const files: Record<string, string> = {
    'a/index.ts': "import { b } from '../b/index.js';\nexport const a = b + 1;\n",
    'b/index.ts': "import { c } from '../c/deep/leaf.js';\nexport const b = c + 1;\n",
    'c/deep/leaf.ts': 'export const c = 1;\n',
    'c/deep/leaf.test.ts': "import { a } from '../../a/index.js';\nexport const t = a;\n",
    ...extra,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('feature-folder import cycle check', () => {
  it('passes on the repository: backend, gateway and bot feature folders import without cycles and only through entries', () => {
    const r = run();
    expect(r.out).toContain('apps/backend/src:');
    expect(r.out).toContain('apps/gateway/src:');
    expect(r.out).toContain('apps/bot/src:');
    expect(r.out).not.toContain('CYCLE');
    expect(r.out).not.toContain('INTERNAL');
    for (const app of ['backend', 'gateway', 'bot']) {
      expect(r.out).toMatch(
        new RegExp(
          `apps/${app}/src: [^\\n]*\\n {2}\\d+ folder-to-folder arrow\\(s\\), longest import chain \\d+ file\\(s\\), 0 import\\(s\\) into 0 file\\(s\\)`,
        ),
      );
    }
    expect(r.status).toBe(0);
  });

  it('passes on an acyclic tree (a test file importing upwards does not count)', () => {
    const dir = fixture({});
    try {
      const r = run(dir);
      expect(r.out).toContain('3 features, 0 import cycle(s), depth 3, 0 arrow(s) pointing back up');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails on a cycle through a type-only import and names the cycle and the importing file', () => {
    const dir = fixture({ 'c/deep/up.ts': "import type { a } from '../../a/index.js';\nexport type Up = typeof a;\n" });
    try {
      const r = run(dir);
      expect(r.status).toBe(1);
      expect(r.out).toContain('CYCLE a -> b -> c -> a');
      expect(r.out).toContain('c/deep/up.ts -> ../../a/index.js');
      expect(r.out).toContain('1 arrow(s) pointing back up (1 import(s))');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts a root file as its own feature', () => {
    const dir = fixture({
      'config.ts': "import { a } from './a/index.js';\nexport const cfg = a;\n",
      'c/cfg.ts': "export { cfg } from '../config.js';\n",
    });
    try {
      const r = run(dir);
      expect(r.status).toBe(1);
      expect(r.out).toContain('CYCLE a -> b -> c -> config.ts -> a');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails on an import of another folder's internals and names the importing file", () => {
    const dir = fixture({});
    try {
      const r = run('--boundaries', dir);
      expect(r.status).toBe(1);
      expect(r.out).toContain("INTERNAL b/index.ts -> ../c/deep/leaf.js  (import the folder's index.ts)");
      expect(r.out).toContain(
        "2 folder-to-folder arrow(s), longest import chain 3 file(s), 1 import(s) into 1 file(s) of another folder's internals",
      );
      expect(run('--rule', 'cycles', '--boundaries', dir).status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("passes when every folder is imported through its index.ts; a test may import its own folder's internals, not another's", () => {
    const dir = fixture({
      'b/index.ts': "import { c } from '../c/index.js';\nexport const b = c + 1;\n",
      'c/index.ts': "export { c } from './deep/leaf.js';\n",
      'root.ts': "import { a } from './a/index.js';\nexport const r = a;\n",
      'c/deep/own.test.ts': "import { c } from './leaf.js';\nexport const t = c;\n",
    });
    try {
      const ok = run('--boundaries', dir);
      expect(ok.out).toContain('4 features, 0 import cycle(s), depth 4');
      expect(ok.out).toContain("0 import(s) into 0 file(s) of another folder's internals");
      expect(ok.out).toContain('longest chain: root.ts -> a/index.ts -> b/index.ts -> c/index.ts -> c/deep/leaf.ts');
      expect(ok.status).toBe(0);
      writeFileSync(join(dir, 'a/reach.test.ts'), "import { c } from '../c/deep/leaf.js';\nexport const t = c;\n");
      const bad = run('--boundaries', dir);
      expect(bad.status).toBe(1);
      expect(bad.out).toContain('INTERNAL a/reach.test.ts -> ../c/deep/leaf.js');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('files rule: fails on two files of one folder importing each other (a type-only import counts), passes once the circle is cut', () => {
    const dir = fixture({
      'c/deep/order.ts':
        "import type { World } from './state.js';\nexport type Order = 'a' | 'b';\nexport const pick = (w: World): Order => w.order;\n",
      'c/deep/state.ts': "import type { Order } from './order.js';\nexport interface World { order: Order }\n",
    });
    try {
      const r = run('--rule', 'files', dir);
      expect(r.out).toContain(`FILE CIRCLE in ${dir}: c/deep/order.ts, c/deep/state.ts`);
      expect(r.status).toBe(1);
      writeFileSync(join(dir, 'c/deep/state.ts'), "export interface World { order: 'a' | 'b' }\n");
      const cut = run('--rule', 'files', dir);
      expect(cut.out).toContain('1 src folder(s): 0 circle(s) of files importing each other');
      expect(cut.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('files rule: the workspace (every app, lib and tool src folder) has no circle of files', () => {
    const r = run('--rule', 'files');
    expect(r.out).toMatch(/^\d+ src folder\(s\): 0 circle\(s\)/);
    expect(r.status).toBe(0);
  });
});
