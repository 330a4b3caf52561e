// What a bundle imports against what its package.json promises. The bundles keep third-party
// packages external and ship only the dependencies their projects declare, so a package imported
// but not declared (or declared only under devDependencies) is found by no test that runs inside
// the monorepo (the root node_modules hides it) and crashes the image with ERR_MODULE_NOT_FOUND.
import { build } from 'esbuild';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, resolve, sep } from 'node:path';

const builtins = new Set(builtinModules);

/** The package a bare import specifier names (`@scope/name/sub` -> `@scope/name`, `a/b` -> `a`). */
export const packageName = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

/** Third-party imports stay external; @wordgame/* workspace libs and relative paths are bundled. */
export const externalThirdParty = {
  name: 'external-third-party',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@wordgame/') ? undefined : { path: args.path, external: true }));
  },
};

/** Every npm workspace folder (relative, `apps/backend`), from the root package.json's `dir/*` globs. */
export function workspaces(root) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return (pkg.workspaces ?? []).flatMap((glob) => {
    const base = glob.replace(/\/\*$/, '');
    return readdirSync(join(root, base), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(root, base, d.name, 'package.json')))
      .map((d) => `${base}/${d.name}`);
  });
}

/** A project's runtime entry: src/main.ts when it has one, else its package.json `exports["."]`. */
export function entryOf(root, project) {
  const main = join(root, project, 'src/main.ts');
  if (existsSync(main)) return main;
  const pkg = JSON.parse(readFileSync(join(root, project, 'package.json'), 'utf8'));
  const dot = pkg.exports?.['.'];
  const target = typeof dot === 'string' ? dot : dot?.default;
  return target ? join(root, project, target) : undefined;
}

/**
 * The problems in one esbuild metafile (paths relative to `root`): each import of a bundled file
 * must be a Node builtin, a relative path, or a package in the `dependencies` of the workspace
 * project that owns the file, a dynamic `import()` too (no dev-only path is left in a bundle: the
 * backend runs on PostgreSQL alone). Returns one line per problem; empty means the bundle runs on its
 * declared dependencies alone.
 */
export function metafileProblems(root, metafile) {
  const projects = workspaces(root).sort((a, b) => b.length - a.length);
  const manifests = new Map();
  const manifestOf = (project) => {
    if (!manifests.has(project)) manifests.set(project, JSON.parse(readFileSync(join(root, project, 'package.json'), 'utf8')));
    return manifests.get(project);
  };
  const depsOf = (project) => new Set(Object.keys(manifestOf(project).dependencies ?? {}));
  const problems = [];
  for (const [file, input] of Object.entries(metafile.inputs)) {
    const owner = projects.find((p) => file.startsWith(`${p}/`));
    if (!owner) continue;
    for (const imp of input.imports) {
      const spec = imp.original ?? imp.path;
      if (spec.startsWith('.') || spec.startsWith('node:') || builtins.has(spec) || (!imp.external && !spec.startsWith('@'))) continue;
      const name = packageName(spec);
      if (!depsOf(owner).has(name)) problems.push(`${file} imports ${name}, which is not in the dependencies of ${owner}/package.json`);
    }
  }
  return [...new Set(problems)];
}

/** Bundles one project's entry in memory (as tools/build/bundle.mjs does) and returns its metafile. */
export async function bundleMetafile(root, project) {
  const entry = entryOf(root, project);
  if (!entry) return undefined;
  const result = await build({
    absWorkingDir: root,
    entryPoints: [relative(root, entry).split(sep).join('/')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [externalThirdParty],
  });
  return result.metafile;
}

/** The dependency problems of every workspace project that has a runtime entry. */
export async function dependencyProblems(root) {
  const problems = [];
  for (const project of workspaces(root)) {
    const metafile = await bundleMetafile(root, project);
    if (metafile) problems.push(...metafileProblems(root, metafile));
  }
  return [...new Set(problems)].sort();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = resolve(import.meta.dirname, '../..');
  const problems = await dependencyProblems(root);
  for (const p of problems) console.error(p);
  console.log(
    problems.length === 0
      ? `bundle dependencies: every import of ${workspaces(root).length} projects is declared`
      : `${problems.length} undeclared import(s): add each to its project's dependencies`,
  );
  process.exit(problems.length === 0 ? 0 : 1);
}
