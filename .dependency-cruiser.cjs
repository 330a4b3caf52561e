/**
 * The import rules dependency-cruiser checks in `npm run lint` (the `lint-rules` project's lint target):
 * - feature-entry: in the apps, a file imports another feature (a top-level folder of its src) only
 *   through that folder's index.ts, its one public entry; tests may import internals.
 * - no-file-circle: no two files of any app, lib or tool import each other in a circle, type-only
 *   imports included (they tie the files together as much as a value import does).
 * Cycles between features, which no file-level rule sees, are the ESLint rule
 * wordgame/no-feature-cycle (tools/lint-rules), shown in editors too.
 */
module.exports = {
  forbidden: [
    {
      name: 'feature-entry',
      comment: "imports another feature's internals: import that folder's index.ts (docs/architecture.md#module-rules)",
      severity: 'error',
      from: { path: '^apps/(backend|gateway|bot)/src/([^/]+)', pathNot: '\\.(test|spec)\\.ts$' },
      to: { path: '^apps/$1/src/[^/]+/', pathNot: ['^apps/$1/src/$2/', '^apps/$1/src/[^/]+/index\\.ts$'] },
    },
    {
      name: 'no-file-circle',
      comment: 'files import each other in a circle: move what both need into a third file',
      severity: 'error',
      from: { path: '^(apps|libs|tools)/[^/]+/src/', pathNot: '\\.(test|spec)\\.ts$' },
      to: { circular: true },
    },
  ],
  options: {
    includeOnly: '^(apps|libs|tools)/[^/]+/src/',
    exclude: { path: '(/node_modules/|/gen/|\\.d\\.ts$|\\.d\\.mts$)' },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.mts', '.js', '.mjs'],
      exportsFields: ['exports'],
      conditionNames: ['types', 'import', 'default'],
      mainFields: ['types', 'module', 'main'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
