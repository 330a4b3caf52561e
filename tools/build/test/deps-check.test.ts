import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dependencyProblems, packageName } from '../deps-check.mjs';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Writes files (path -> contents) under dir, making folders as needed. */
function writeTree(dir: string, files: Record<string, string>): void {
  for (const [path, contents] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), contents);
  }
}

/** A two-project workspace: a lib declaring zod, and a tool whose main imports the lib, zod and node:http. */
function fixture(toolPackage: object): string {
  const dir = mkdtempSync(join(tmpdir(), 'deps-check-'));
  writeTree(dir, {
    'package.json': JSON.stringify({ name: 'fixture', private: true, workspaces: ['libs/*', 'tools/*'] }),
    'libs/cfg/package.json': JSON.stringify({
      name: '@wordgame/cfg',
      type: 'module',
      exports: { '.': { default: './src/index.ts' } },
      dependencies: { zod: '^4' },
    }),
    'libs/cfg/src/index.ts': "import { z } from 'zod';\nexport const port = z.coerce.number();\n",
    'tools/emu/package.json': JSON.stringify({ name: '@wordgame/emu', type: 'module', ...toolPackage }),
    'tools/emu/src/main.ts':
      "import { createServer } from 'node:http';\nimport { z } from 'zod/v4';\nimport { port } from '@wordgame/cfg';\ncreateServer().listen(port.parse(z.string().parse('0')));\n",
  });
  mkdirSync(join(dir, 'node_modules/@wordgame'), { recursive: true });
  symlinkSync(join(dir, 'libs/cfg'), join(dir, 'node_modules/@wordgame/cfg'));
  return dir;
}

describe('bundle dependency check', () => {
  it('passes on the repository: every bundle imports only what its project declares', async () => {
    expect(await dependencyProblems(root)).toEqual([]);
  });

  it('names each package a bundle imports that its project lists only as a devDependency', async () => {
    const dir = fixture({ devDependencies: { zod: '^4', '@wordgame/cfg': '*' } });
    try {
      expect(await dependencyProblems(dir)).toEqual([
        'tools/emu/src/main.ts imports @wordgame/cfg, which is not in the dependencies of tools/emu/package.json',
        'tools/emu/src/main.ts imports zod, which is not in the dependencies of tools/emu/package.json',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a devDependency in a bundle, imported statically or with import()', async () => {
    const dir = fixture({ dependencies: { zod: '^4', '@wordgame/cfg': '*' }, devDependencies: { 'dev-db': '1.0.0' } });
    try {
      writeTree(dir, { 'tools/emu/src/main.ts': "import { open } from './dev.js';\nvoid open;\n" });
      const problem = 'tools/emu/src/dev.ts imports dev-db, which is not in the dependencies of tools/emu/package.json';
      writeTree(dir, { 'tools/emu/src/dev.ts': "export const open = async () => (await import('dev-db')).open();\n" });
      expect(await dependencyProblems(dir)).toEqual([problem]);
      writeTree(dir, { 'tools/emu/src/dev.ts': "import { open as o } from 'dev-db';\nexport const open = o;\n" });
      expect(await dependencyProblems(dir)).toEqual([problem]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('accepts the same bundle once the tool declares them, builtins needing nothing', async () => {
    const dir = fixture({ dependencies: { zod: '^4', '@wordgame/cfg': '*' } });
    try {
      expect(await dependencyProblems(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the package of scoped and deep specifiers', () => {
    expect([packageName('@connectrpc/connect-node'), packageName('zod/v4'), packageName('@a/b/c')]).toEqual([
      '@connectrpc/connect-node',
      'zod',
      '@a/b',
    ]);
  });
});
