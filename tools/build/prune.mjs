// Gives a bundle (dist/<app>/, made by bundle.mjs) its own node_modules: the packages its
// package.json depends on and everything they need, copied from the installed workspace tree with
// the versions the lockfile chose, and nothing else (no @wordgame/* workspace links, no test or
// dev packages). An image's runtime stage copies dist/<app>/ alone.
// Usage: node tools/build/prune.mjs <app-dir>   (after bundle.mjs, in a tree installed by npm ci)
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** The folder Node would load `name` from when required inside `fromDir`, or undefined. */
export function locate(root, fromDir, name) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === root || dir === dirname(dir)) return undefined;
  }
}

/**
 * The runtime closure of `deps` required from `fromDir`: a map from each package's folder in the
 * installed tree to its folder under the bundle's node_modules (workspace-nested installs are
 * lifted to the top; two different folders for one place is an error).
 */
export function closure(root, fromDir, deps) {
  const placed = new Map();
  const byTarget = new Map();
  const queue = deps.map((name) => ({ name, from: fromDir, optional: false }));
  while (queue.length > 0) {
    const { name, from, optional } = queue.shift();
    const dir = locate(root, from, name);
    if (!dir) {
      if (optional) continue;
      throw new Error(`${name} (needed from ${relative(root, from) || '.'}) is not installed: run npm ci first`);
    }
    if (placed.has(dir)) continue;
    const rel = relative(root, dir).split(sep);
    const target = rel.slice(rel.indexOf('node_modules')).join('/');
    if (byTarget.has(target) && byTarget.get(target) !== dir)
      throw new Error(`${target} would come from both ${byTarget.get(target)} and ${dir}`);
    placed.set(dir, target);
    byTarget.set(target, dir);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const dep of Object.keys(pkg.dependencies ?? {})) queue.push({ name: dep, from: dir, optional: false });
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) queue.push({ name: dep, from: dir, optional: true });
    // A peer the package marks optional (i18next's `typescript`, for its types) is the app's to bring;
    // following it would ship a 23 MB compiler because the workspace happens to have it installed.
    for (const dep of Object.keys(pkg.peerDependencies ?? {}))
      if (pkg.peerDependenciesMeta?.[dep]?.optional !== true) queue.push({ name: dep, from: dir, optional: true });
  }
  return placed;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const app = process.argv[2];
  if (!app) {
    console.error('usage: node tools/build/prune.mjs <app-dir>');
    process.exit(2);
  }
  const root = resolve(import.meta.dirname, '../..');
  const out = join(root, 'dist', app);
  const deps = Object.keys(JSON.parse(readFileSync(join(out, 'package.json'), 'utf8')).dependencies ?? {});
  const placed = closure(root, join(root, app), deps);
  rmSync(join(out, 'node_modules'), { recursive: true, force: true });
  for (const [from, target] of placed) {
    cpSync(from, join(out, target), {
      recursive: true,
      dereference: true,
      filter: (src) => src === from || !relative(from, src).split(sep).includes('node_modules'),
    });
  }
  console.log(`pruned ${app}: ${placed.size} packages in ${join('dist', app, 'node_modules')}`);
}
