#!/usr/bin/env node
/**
 * The module rules of the apps, checked on their import graphs. A feature (module) is a top-level
 * entry of an app's src folder: a folder, or a root file such as config.ts.
 *
 * - cycles: fails when features import each other in a cycle, printing the cycle and the imports
 *   that make it. Every relative import counts (type-only and re-exports too, since a cycle of types
 *   still ties the features together).
 * - boundaries: fails when a file imports another folder's internals: a folder's `index.ts` is its
 *   one public entry and the only file of it that other features may import (root files are their own
 *   entry). Checked for the roots of BOUNDARY_ROOTS.
 *
 * - files: fails when files import each other in a circle (type-only imports too) anywhere in the
 *   src folders of FILE_ROOTS (every app, lib and tool), printing each circle's files.
 *
 * *.test.ts files are left out of the cycles and the structure; a module's tests may import its own
 * internals, and a test of one module imports another through its entry like any file.
 * For each root it also prints the structure: features, floors (the longest import chain counted in
 * features), folder-to-folder arrows, arrows pointing back up (against a depth-first topological
 * order; zero when acyclic), the longest import chain counted in files, and the imports into another
 * folder's internals (how many import statements, into how many files).
 *
 * Usage: node tools/check/feature-cycles.mjs [--rule cycles|boundaries|files] [--boundaries] [srcDir ...]
 * Without folders it checks APP_ROOTS (cycles) and BOUNDARY_ROOTS (boundaries); with folders it
 * checks cycles in each, and boundaries too when --boundaries is given. --rule picks one rule.
 * Plain ESM (no compiler needed); parses specifiers with the TypeScript scanner (ts.preProcessFile).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { sources } from './sources.mjs';

/** The apps whose feature folders must not import each other in a cycle. */
export const APP_ROOTS = ['apps/backend/src', 'apps/gateway/src', 'apps/bot/src'];
/**
 * The apps whose features are modules: other features import only a folder's index.ts. The one
 * place that says which apps the boundary rule holds for: every app of APP_ROOTS.
 */
export const BOUNDARY_ROOTS = ['apps/backend/src', 'apps/gateway/src', 'apps/bot/src'];

/**
 * Every src folder of the workspace (apps, libs, tools): no two files in any of them may import
 * each other in a circle, whatever the features (the `files` rule).
 */
export const FILE_ROOTS = ['apps', 'libs', 'tools'].flatMap((top) =>
  (statSync(top, { throwIfNoEntry: false })?.isDirectory() ? readdirSync(top) : [])
    .map((name) => path.join(top, name, 'src'))
    .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    .sort(),
);

const TEST = /\.(test|spec)\.(m?ts|tsx)$/;

/** The feature a path under root belongs to: its first segment (a folder or a root file), or undefined outside root. */
function featureOf(root, file) {
  const rel = path.relative(root, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  const first = rel.split(path.sep)[0];
  return first === rel ? first.replace(/\.(m?ts|tsx|m?js)$/, '.ts') : first;
}

/** The source file a relative specifier names (`./x.js` is `./x.ts`), as written when no such file is among `known`. */
function resolveSource(from, spec, known) {
  const p = path.resolve(path.dirname(from), spec);
  for (const candidate of [
    p,
    p.replace(/\.js$/, '.ts'),
    p.replace(/\.mjs$/, '.mts'),
    p.replace(/\.js$/, '.tsx'),
    `${p}.ts`,
    path.join(p, 'index.ts'),
  ]) {
    if (known.has(candidate)) return candidate;
  }
  return p;
}

/**
 * The import graph of one src folder: `files` maps each source file to the files it imports (every
 * relative import, with its specifier), `tests` the same for its *.test.ts files; `features` is the
 * feature graph of the source files, Map<from, Map<to, string[]>>, where the strings name each
 * importing file and specifier ("payments/x.ts -> ../config.js").
 */
export function importGraph(root) {
  const list = sources(root).map((f) => path.resolve(f));
  const known = new Set(list);
  const files = new Map();
  const tests = new Map();
  const features = new Map();
  for (const file of list) {
    const isTest = TEST.test(file);
    const from = featureOf(root, file);
    if (!isTest && !features.has(from)) features.set(from, new Map());
    const imports = [];
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName: spec } of info.importedFiles) {
      if (!spec.startsWith('.')) continue;
      const target = resolveSource(file, spec, known);
      imports.push({ spec, target });
      const to = featureOf(root, target);
      if (isTest || to === undefined || to === from) continue;
      const edges = features.get(from);
      if (!edges.has(to)) edges.set(to, []);
      edges.get(to).push(`${path.relative(root, file)} -> ${spec}`);
    }
    (isTest ? tests : files).set(file, imports);
  }
  for (const edges of [...features.values()]) for (const to of edges.keys()) if (!features.has(to)) features.set(to, new Map());
  return { files, tests, features };
}

/** The feature graph of one src folder (see importGraph). */
export function featureGraph(root) {
  return importGraph(root).features;
}

/** Strongly connected components with more than one feature (Tarjan), each sorted. */
export function cycles(graph) {
  return components(graph).filter((scc) => scc.length > 1);
}

/** Every strongly connected component of a graph Map<node, Map<node, unknown> | Set<node>> (Tarjan), each sorted. */
function components(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of [...graph.get(v).keys()].sort()) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      out.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

/** One concrete cycle inside a component, as a path a -> b -> ... -> a (breadth-first from its first member). */
export function cyclePath(graph, component) {
  const members = new Set(component);
  const start = component[0];
  const prev = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of [...graph.get(v).keys()].sort()) {
      if (!members.has(w)) continue;
      if (w === start) {
        const chain = [];
        for (let u = v; u !== start; u = prev.get(u)) chain.unshift(u);
        return [start, ...chain, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return component;
}

/**
 * The layering: a depth-first walk in name order; an edge to a feature still on the walk's stack
 * points back up. Depth (floors) is the longest import chain (in features) once those edges are left out.
 */
export function layering(graph) {
  const state = new Map();
  const backUp = [];
  const walk = (v) => {
    state.set(v, 'open');
    for (const w of [...graph.get(v).keys()].sort()) {
      if (state.get(w) === 'open') backUp.push([v, w]);
      else if (!state.has(w)) walk(w);
    }
    state.set(v, 'done');
  };
  for (const v of [...graph.keys()].sort()) if (!state.has(v)) walk(v);
  const skip = new Set(backUp.map(([a, b]) => `${a}\0${b}`));
  const depth = new Map();
  const depthOf = (v) => {
    if (depth.has(v)) return depth.get(v);
    depth.set(v, 1);
    let d = 1;
    for (const w of graph.get(v).keys()) if (!skip.has(`${v}\0${w}`)) d = Math.max(d, 1 + depthOf(w));
    depth.set(v, d);
    return d;
  };
  let max = 0;
  for (const v of graph.keys()) max = Math.max(max, depthOf(v));
  const imports = backUp.reduce((n, [a, b]) => n + graph.get(a).get(b).length, 0);
  return { depth: max, backUp, backUpImports: imports };
}

/**
 * The longest import chain counted in files: the longest path of the file graph once each group of
 * files importing each other in a circle is taken as one step. Answers its length and the files.
 */
export function longestChain(files) {
  const graph = new Map([...files].map(([f, imports]) => [f, new Set(imports.map((i) => i.target).filter((t) => files.has(t)))]));
  const sccs = components(graph);
  const group = new Map();
  sccs.forEach((scc, i) => scc.forEach((f) => group.set(f, i)));
  const best = new Map();
  const walk = (i) => {
    if (best.has(i)) return best.get(i);
    let next;
    let len = 0;
    for (const f of sccs[i]) {
      for (const t of graph.get(f)) {
        const j = group.get(t);
        if (j === i) continue;
        const l = walk(j).length;
        if (l > len) {
          len = l;
          next = j;
        }
      }
    }
    const r = { length: len + 1, next };
    best.set(i, r);
    return r;
  };
  let start;
  let length = 0;
  for (let i = 0; i < sccs.length; i++) {
    const l = walk(i).length;
    if (l > length) {
      length = l;
      start = i;
    }
  }
  const chain = [];
  for (let i = start; i !== undefined; i = best.get(i).next) chain.push(sccs[i][0]);
  const circles = sccs.filter((s) => s.length > 1);
  return { length, chain, circles: circles.length, circleFiles: circles };
}

/**
 * Every import of another folder's internals: a file importing a file of another top-level folder
 * that is not that folder's index.ts (root files are their own entry). Answers "file -> specifier" lines.
 */
export function internalImports(root, files) {
  const out = [];
  for (const [file, imports] of files) {
    const from = featureOf(root, file);
    for (const { spec, target } of imports) {
      const to = featureOf(root, target);
      if (to === undefined || to === from) continue;
      const rel = path.relative(root, target).split(path.sep);
      if (rel.length === 1 || (rel.length === 2 && rel[1] === 'index.ts')) continue;
      out.push({ line: `${path.relative(root, file)} -> ${spec}`, target: path.relative(root, target) });
    }
  }
  return out.sort((a, b) => a.line.localeCompare(b.line));
}

/** The files rule over `roots`: answers a line per circle of files importing each other, and whether one was found. */
export function fileCircles(roots) {
  const lines = [];
  for (const root of roots) {
    const { files } = importGraph(root);
    for (const circle of longestChain(files).circleFiles) {
      lines.push(
        `  FILE CIRCLE in ${root}: ${circle
          .map((f) => path.relative(root, f))
          .sort()
          .join(', ')}`,
      );
    }
  }
  lines.unshift(`${roots.length} src folder(s): ${lines.length} circle(s) of files importing each other`);
  return { lines, failed: lines.length > 1 };
}

/**
 * Checks each root; answers the report lines and whether a rule failed. `boundaryRoots` are the
 * roots whose internal imports fail the check; for the others they are counted only.
 */
export function check(roots, { rules = ['cycles', 'boundaries'], boundaryRoots = roots } = {}) {
  const lines = [];
  let failed = false;
  for (const root of roots) {
    const { files, tests, features } = importGraph(root);
    const found = cycles(features);
    const { depth, backUp, backUpImports } = layering(features);
    const arrows = [...features.values()].reduce((n, edges) => n + edges.size, 0);
    const chain = longestChain(files);
    const internal = internalImports(root, files);
    const internalOfTests = internalImports(root, tests);
    const into = new Set(internal.map((i) => i.target));
    lines.push(
      `${root}: ${features.size} features, ${found.length} import cycle(s), depth ${depth}, ${backUp.length} arrow(s) pointing back up (${backUpImports} import(s))`,
      `  ${arrows} folder-to-folder arrow(s), longest import chain ${chain.length} file(s), ${internal.length} import(s) into ${into.size} file(s) of another folder's internals`,
      `  longest chain: ${chain.chain.map((f) => path.relative(root, f)).join(' -> ')}`,
    );
    for (const [a, b] of backUp) lines.push(`  info: back up ${a} -> ${b}`);
    if (rules.includes('cycles')) {
      for (const component of found) {
        failed = true;
        const cyc = cyclePath(features, component);
        lines.push(`  CYCLE ${cyc.join(' -> ')}  (component: ${component.join(', ')})`);
        for (let i = 0; i + 1 < cyc.length; i++) {
          for (const via of features.get(cyc[i]).get(cyc[i + 1]) ?? []) lines.push(`    ${via}`);
        }
      }
    }
    if (rules.includes('boundaries') && boundaryRoots.includes(root)) {
      for (const { line } of [...internal, ...internalOfTests]) {
        failed = true;
        lines.push(`  INTERNAL ${line}  (import the folder's index.ts)`);
      }
    }
  }
  return { lines, failed };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  let rules = ['cycles', 'boundaries'];
  let boundaries = false;
  const roots = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--rule') rules = [args[++i]];
    else if (args[i] === '--boundaries') boundaries = true;
    else roots.push(args[i]);
  }
  if (rules.some((r) => r !== 'cycles' && r !== 'boundaries' && r !== 'files')) {
    console.error('feature-cycles: --rule is cycles, boundaries or files');
    process.exit(2);
  }
  if (rules.includes('files')) {
    const { lines, failed } = fileCircles(roots.length > 0 ? roots : FILE_ROOTS);
    for (const line of lines) console.log(line);
    process.exit(failed ? 1 : 0);
  }
  const checked = roots.length > 0 ? roots : [...APP_ROOTS, ...BOUNDARY_ROOTS.filter((r) => !APP_ROOTS.includes(r))];
  const boundaryRoots = roots.length > 0 ? (boundaries ? roots : []) : BOUNDARY_ROOTS;
  for (const root of checked) {
    if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
      console.error(`feature-cycles: ${root} is not a folder`);
      process.exit(2);
    }
  }
  const { lines, failed } = check(checked, { rules, boundaryRoots });
  for (const line of lines) console.log(line);
  process.exit(failed ? 1 : 0);
}
