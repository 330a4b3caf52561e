// Bundles one app (apps/<name>/src/main.ts) into dist/apps/<name>/main.js, and each of the app's
// commands (package.json `"commands": {"operator-create": "src/operators/create-cli.ts"}`) into
// dist/apps/<name>/<command>.js: the workspace libs are inlined, third-party packages stay external
// and come from the app's production dependencies. tools/build/entrypoint.sh runs them in an image.
// Every file is written beside its target and renamed over it, so a process starting from dist/
// while another command rebuilds it (a bench beside `npm test`) reads the old file or the new one,
// never half of one.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { externalThirdParty, metafileProblems } from './deps-check.mjs';

const app = process.argv[2];
if (!app) {
  console.error('usage: node tools/build/bundle.mjs <app-dir>');
  process.exit(2);
}
const root = resolve(import.meta.dirname, '../..');
const name = app.split('/').pop();
const outRel = join('dist', app);
const outdir = join(root, outRel);

/** Writes `contents` to `file` atomically (same directory, then rename). */
const writeAtomically = (file, contents) => {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, file);
};

const manifest = JSON.parse(readFileSync(join(root, app, 'package.json'), 'utf8'));
const entryPoints = {
  main: join(app, 'src/main.ts'),
  ...Object.fromEntries(Object.entries(manifest.commands ?? {}).map(([cmd, src]) => [cmd, join(app, src)])),
};
const result = await build({
  absWorkingDir: root,
  entryPoints,
  outdir,
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'esm',
  sourcemap: true,
  plugins: [externalThirdParty],
  logLevel: 'warning',
  write: false,
  metafile: true,
});
// A bundle that imports a package its project does not declare would crash where only the declared
// dependencies are installed (an image): refuse to write it.
const problems = metafileProblems(root, result.metafile);
if (problems.length > 0) {
  for (const p of problems) console.error(p);
  process.exit(1);
}
mkdirSync(outdir, { recursive: true });
for (const file of result.outputFiles) writeAtomically(file.path, file.contents);

// A package.json next to the bundle: ESM, and the production dependencies the bundle imports.
const collect = (dir, seen = {}) => {
  const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  for (const [dep, range] of Object.entries(pkg.dependencies ?? {})) {
    if (dep.startsWith('@wordgame/')) collect(`libs/${dep.slice('@wordgame/'.length)}`, seen);
    else seen[dep] = range;
  }
  return seen;
};
const deps = collect(app);
writeAtomically(
  join(outdir, 'package.json'),
  `${JSON.stringify({ name: `@wordgame/${name}-dist`, private: true, type: 'module', main: 'main.js', dependencies: Object.fromEntries(Object.entries(deps).sort()) }, null, 2)}\n`,
);
console.log(
  `built ${app} -> ${Object.keys(entryPoints)
    .map((e) => join(outRel, `${e}.js`))
    .join(', ')}`,
);
