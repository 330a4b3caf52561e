import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_ROOTS, cyclePath, cycles, featureGraph } from '../../check/feature-cycles.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Graph and cycles per root, computed once per lint process (an editor restart sees new edges). */
const cache = new Map();

/** @param {string} rootDir */
function cyclesOf(rootDir) {
  let found = cache.get(rootDir);
  if (found === undefined) {
    const graph = featureGraph(rootDir);
    const byFeature = new Map();
    for (const component of cycles(graph)) {
      const shown = cyclePath(graph, component).join(' -> ');
      for (const feature of component) byFeature.set(feature, { members: new Set(component), shown });
    }
    found = { graph, byFeature };
    cache.set(rootDir, found);
  }
  return found;
}

/**
 * `wordgame/no-feature-cycle`: no two features (top-level folders or root files of an app's src in
 * `APP_ROOTS`) import each other, directly or around a longer loop; type-only imports and re-exports
 * count, since a cycle of types still ties the features together. Reported at each import of the
 * linted file that is an arrow of the cycle, naming the cycle. No file-level rule sees this: each
 * import may go through an index.ts and no file circle exist, while the features still form a loop.
 * @type {import('eslint').Rule.RuleModule}
 */
export const noFeatureCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'No import cycle between the features of an app' },
    schema: [
      {
        type: 'object',
        properties: { repo: { type: 'string' }, roots: { type: 'array', items: { type: 'string' } } },
        additionalProperties: false,
      },
    ],
    messages: { cycle: 'this import is an arrow of the feature cycle {{cycle}}: cut one arrow (docs/architecture.md#module-rules)' },
  },
  create(context) {
    const [options] = /** @type {[{ repo?: string; roots?: string[] } | undefined]} */ (context.options);
    const repo = options?.repo ?? REPO;
    const rel = path.relative(repo, context.filename).split(path.sep).join('/');
    const root = (options?.roots ?? APP_ROOTS).find((r) => rel.startsWith(`${r}/`));
    if (root === undefined || /\.(test|spec)\.(m?ts|tsx)$/.test(rel)) return {};
    const inRoot = rel.slice(root.length + 1);
    const first = inRoot.split('/')[0] ?? '';
    const feature = first === inRoot ? first.replace(/\.(m?ts|tsx|m?js)$/, '.ts') : first;
    /** @param {import('estree').Node & { source?: import('estree').Literal | null }} node */
    const check = (node) => {
      const spec = node.source?.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const { graph, byFeature } = cyclesOf(path.join(repo, root));
      const cycle = byFeature.get(feature);
      if (cycle === undefined) return;
      for (const [to, lines] of graph.get(feature) ?? []) {
        if (cycle.members.has(to) && lines.includes(`${inRoot} -> ${spec}`)) {
          context.report({ node, messageId: 'cycle', data: { cycle: cycle.shown } });
        }
      }
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};
