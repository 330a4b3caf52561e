import { noElapsedUpperBound } from './no-elapsed-upper-bound.js';

/**
 * The project's own ESLint rules, loaded by the root eslint.config.js so that `npm run lint` and
 * editors show them where the code is written.
 */
export const plugin = {
  meta: { name: 'eslint-plugin-wordgame' },
  rules: { 'no-elapsed-upper-bound': noElapsedUpperBound },
};

export default plugin;
