#!/usr/bin/env node
/**
 * Fails (exit 1) when the feature folders of an app import each other in a cycle, printing the cycle
 * and the imports that make it. A feature is a top-level entry of the app's src folder: a folder, or
 * a root file such as config.ts. Every relative import counts (type-only and re-exports too, since a
 * cycle of types still ties the features together); *.test.ts files are left out.
 *
 * Also prints, as information, the layering: depth (import levels) and "arrows pointing back up",
 * the folder-to-folder imports that go against a depth-first topological order (zero when acyclic).
 *
 * Usage: node tools/check/feature-cycles.mjs [srcDir ...]  (default: the backend, gateway and bot).
 * Plain ESM (no compiler needed); parses specifiers with the TypeScript scanner (ts.preProcessFile).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const DEFAULT_ROOTS = ['apps/backend/src', 'apps/gateway/src', 'apps/bot/src'];

/** Every .ts/.mts/.tsx source file under dir, tests excluded. */
function sources(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'gen') out.push(...sources(p));
    } else if (/\.(m?ts|tsx)$/.test(entry.name) && !/\.(test|spec)\.(m?ts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      out.push(p);
    }
  }
  return out;
}

/** The feature a path under root belongs to: its first segment (a folder or a root file), or undefined outside root. */
function featureOf(root, file) {
  const rel = path.relative(root, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  const first = rel.split(path.sep)[0];
  return first === rel ? first.replace(/\.(m?ts|tsx|m?js)$/, '.ts') : first;
}

/**
 * The feature graph of one src folder: Map<from, Map<to, string[]>> where the strings name each
 * importing file and specifier ("payments/x.ts -> ../config.js").
 */
export function featureGraph(root) {
  const graph = new Map();
  for (const file of sources(root)) {
    const from = featureOf(root, file);
    if (!graph.has(from)) graph.set(from, new Map());
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName: spec } of info.importedFiles) {
      if (!spec.startsWith('.')) continue;
      const to = featureOf(root, path.resolve(path.dirname(file), spec));
      if (to === undefined || to === from) continue;
      const edges = graph.get(from);
      if (!edges.has(to)) edges.set(to, []);
      edges.get(to).push(`${path.relative(root, file)} -> ${spec}`);
    }
  }
  for (const edges of [...graph.values()]) for (const to of edges.keys()) if (!graph.has(to)) graph.set(to, new Map());
  return graph;
}

/** Strongly connected components with more than one feature (Tarjan), each sorted. */
export function cycles(graph) {
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
      if (scc.length > 1) out.push(scc.sort());
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
 * points back up. Depth is the longest import chain (in features) once those edges are left out.
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

/** Checks each root; answers the report lines and whether any has a cycle. */
export function check(roots) {
  const lines = [];
  let failed = false;
  for (const root of roots) {
    const graph = featureGraph(root);
    const found = cycles(graph);
    const { depth, backUp, backUpImports } = layering(graph);
    lines.push(
      `${root}: ${graph.size} features, ${found.length} import cycle(s), depth ${depth}, ${backUp.length} arrow(s) pointing back up (${backUpImports} import(s))`,
    );
    for (const [a, b] of backUp) lines.push(`  info: back up ${a} -> ${b}`);
    for (const component of found) {
      failed = true;
      const cyc = cyclePath(graph, component);
      lines.push(`  CYCLE ${cyc.join(' -> ')}  (component: ${component.join(', ')})`);
      for (let i = 0; i + 1 < cyc.length; i++) {
        for (const via of graph.get(cyc[i]).get(cyc[i + 1]) ?? []) lines.push(`    ${via}`);
      }
    }
  }
  return { lines, failed };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const roots = args.length > 0 ? args : DEFAULT_ROOTS;
  for (const root of roots) {
    if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
      console.error(`feature-cycles: ${root} is not a folder`);
      process.exit(2);
    }
  }
  const { lines, failed } = check(roots);
  for (const line of lines) console.log(line);
  process.exit(failed ? 1 : 0);
}
