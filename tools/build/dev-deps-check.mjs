// The check that no dev-only package reaches a production image: lists every package installed
// under the image's /app/node_modules (nested ones too) and fails on each that npm's lockfile marks
// as reachable only through devDependencies (`dev` or `devOptional`: vite, typescript, jest, esbuild
// …). The lockfile is npm's own closure of every workspace's devDependencies, so the deny list is
// derived, not kept by hand. `npm run images` and CI run it on every product image.
// Usage: node tools/build/dev-deps-check.mjs <image> [<image> …]   (podman, or WORDGAME_ENGINE=docker)
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Package names the lockfile reaches only through devDependencies (dev or devOptional). */
export function devOnlyPackages(lock) {
  const names = new Set();
  const prod = new Set();
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    const at = path.lastIndexOf('node_modules/');
    if (at < 0) continue;
    const name = path.slice(at + 'node_modules/'.length);
    if (entry.dev === true || entry.devOptional === true) names.add(name);
    else prod.add(name);
  }
  // A name installed at one place for production and at another only for dev is production's.
  for (const name of prod) names.delete(name);
  return names;
}

/** The installed package names (`a`, `@scope/b`) that are dev-only: one line per offender. */
export function devOnlyProblems(image, installed, devOnly) {
  return [...new Set(installed)]
    .filter((name) => devOnly.has(name))
    .sort()
    .map((name) => `${image}: ${name} is a dev-only package (only devDependencies reach it) and is in /app/node_modules`);
}

/** Lists the package names under the image's /app/node_modules, nested node_modules included. */
const LIST = `
const { readdirSync, existsSync } = require('node:fs');
const out = [];
const walk = (dir) => {
  if (!existsSync(dir)) return;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name.startsWith('.')) continue;
    if (e.name.startsWith('@')) {
      for (const s of readdirSync(dir + '/' + e.name, { withFileTypes: true }))
        if (s.isDirectory()) { out.push(e.name + '/' + s.name); walk(dir + '/' + e.name + '/' + s.name + '/node_modules'); }
    } else { out.push(e.name); walk(dir + '/' + e.name + '/node_modules'); }
  }
};
walk('/app/node_modules');
process.stdout.write(JSON.stringify(out));`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const images = process.argv.slice(2);
  if (images.length === 0) {
    console.error('usage: node tools/build/dev-deps-check.mjs <image> [<image> …]');
    process.exit(2);
  }
  const root = resolve(import.meta.dirname, '../..');
  const devOnly = devOnlyPackages(JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')));
  const engine = process.env.WORDGAME_ENGINE ?? 'podman';
  let problems = 0;
  for (const image of images) {
    const r = spawnSync(engine, ['run', '--rm', '--network', 'none', '--no-healthcheck', '--entrypoint', 'node', image, '-e', LIST], {
      encoding: 'utf8',
    });
    if (r.status !== 0) {
      console.error(`${image}: cannot list /app/node_modules: ${r.stderr.trim()}`);
      problems++;
      continue;
    }
    const installed = JSON.parse(r.stdout);
    const found = devOnlyProblems(image, installed, devOnly);
    for (const p of found) console.error(p);
    problems += found.length;
    if (found.length === 0)
      console.log(`${image}: no dev-only package among its ${installed.length} (of ${devOnly.size} dev-only in the lockfile)`);
  }
  process.exit(problems === 0 ? 0 : 1);
}
