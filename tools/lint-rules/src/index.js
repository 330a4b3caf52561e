import { noElapsedUpperBound } from './no-elapsed-upper-bound.js';
import { noFeatureCycle } from './no-feature-cycle.js';
import { oneWriterPerTable, sqlInStoreFiles } from './sql-rules.js';

/**
 * The project's own ESLint rules, loaded by the root eslint.config.js so that `npm run lint` and
 * editors show them where the code is written: no elapsed-time upper bounds in tests, SQL only in
 * store files, one writer per table, no import cycle between an app's features.
 */
export const plugin = {
  meta: { name: 'eslint-plugin-wordgame' },
  rules: {
    'no-elapsed-upper-bound': noElapsedUpperBound,
    'sql-in-store-files': sqlInStoreFiles,
    'one-writer-per-table': oneWriterPerTable,
    'no-feature-cycle': noFeatureCycle,
  },
};

export default plugin;
