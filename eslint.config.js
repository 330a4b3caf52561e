import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import { plugin as wordgame } from './tools/lint-rules/src/index.js';

/**
 * One lint policy for every project: type-aware rules (floating promises are errors), no explicit
 * `any`, Nx module boundaries by tag (apps and tools depend only on libs, libs only on libs), and
 * the project's own rules (tools/lint-rules): SQL only in store files, one writer per table, no
 * import cycle between an app's features, no elapsed-time upper bounds in tests. Feature entries and
 * file circles are dependency-cruiser's (.dependency-cruiser.cjs, run by tools/lint-rules' lint).
 */
export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/.data/**', 'libs/contracts/src/gen/**', '**/jest.config.js'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { '@nx': nx, wordgame },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // SQL only in store files and one writer per table (tools/check's analysis, shown in editors too).
      'wordgame/sql-in-store-files': 'error',
      'wordgame/one-writer-per-table': 'error',
      'wordgame/no-feature-cycle': 'error',
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:backend', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:bot', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:emulator', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:devstack', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:wallet-web', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:bench', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
          ],
        },
      ],
    },
  },
  {
    // Tests may also use the emulators (tools/*-emulator) and the test kit; production code may not.
    files: ['**/*.test.ts', '**/test/**/*.ts'],
    rules: {
      '@typescript-eslint/unbound-method': 'off',
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib', 'scope:emulator'] },
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', 'scope:emulator'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:shared', 'scope:emulator'] },
            { sourceTag: 'scope:backend', onlyDependOnLibsWithTags: ['scope:shared', 'scope:emulator'] },
            { sourceTag: 'scope:bot', onlyDependOnLibsWithTags: ['scope:shared', 'scope:emulator'] },
            { sourceTag: 'scope:emulator', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:devstack', onlyDependOnLibsWithTags: ['scope:shared', 'scope:emulator'] },
            { sourceTag: 'scope:wallet-web', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:bench', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
          ],
        },
      ],
    },
  },
  {
    // Tests wait for events and counts: an elapsed-time upper bound fails on a loaded machine.
    files: ['**/*.test.ts', '**/test/**/*.ts'],
    rules: { 'wordgame/no-elapsed-upper-bound': 'error' },
  },
  {
    // tools/bench measures the gateway's own hub, Link and listener in-process: the only place a
    // tool may import app code, and only these three modules (the bot-link through its entry).
    files: ['tools/bench/src/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: ['^\\.\\./\\.\\./\\.\\./apps/gateway/src/(app|config|botlink/index)\\.js$'],
          depConstraints: [
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'scope:bench', onlyDependOnLibsWithTags: ['scope:shared'] },
          ],
        },
      ],
    },
  },
  {
    // The reference generator reads the code it documents: the config schemas, the REST edge's
    // and console's error mappings and the metric factories of the apps, the emulators' config
    // schemas, and the module graph of tools/check.
    files: ['tools/generate/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [
            '^\\.\\./\\.\\./\\.\\./apps/(backend/src/config/index|gateway/src/config|bot/src/config)\\.js$',
            '^\\.\\./\\.\\./\\.\\./apps/backend/src/(catalog/metrics|db/schema|game/nats-bus|helpdesk/metrics|makegoods/metrics|metrics/index|metrics/registry|privacy/metrics|promos/metrics|reconciliation/metrics)\\.js$',
            '^\\.\\./\\.\\./\\.\\./apps/gateway/src/(console/backend|http/backend-errors|http/metrics|metrics/(botlink-metrics|cluster-metrics|internal-metrics|listener-metrics|registry))\\.js$',
            '^\\.\\./\\.\\./(devstack|mailcatcher|platform-emulator|provider-emulator)/src/config\\.js$',
            // The modules reference reads the import graph and table owners the CI checks compute.
            '^\\.\\./\\.\\./check/(feature-cycles|sources|table-owners)\\.mjs$',
          ],
          depConstraints: [{ sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib'] }],
        },
      ],
    },
  },
  {
    // The money-conservation property with the bot's outbox runs the bot's outbox rule and the
    // backend's payment intake in one process: the only test that imports app code, and only these.
    files: ['tools/faults/test/money-conservation-outbox.test.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [
            '^\\.\\./\\.\\./\\.\\./apps/backend/src/(botcommands/index|catalog/catalog\\.store|config/index|db/database|db/migrate|ledger/audit|payments/(deps|module|refunds/star-refunds|stars/intake)|testing/databases)\\.js$',
            '^\\.\\./\\.\\./\\.\\./apps/bot/src/(payments/(outbox\\.store|pre-checkout|successful-payment)|store/(db|dead-letters))\\.js$',
            '^\\.\\./\\.\\./\\.\\./apps/backend/test/support/star-platform\\.js$',
          ],
          depConstraints: [
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', 'scope:emulator'] },
            { sourceTag: 'scope:faults', onlyDependOnLibsWithTags: ['scope:shared', 'scope:emulator'] },
          ],
        },
      ],
    },
  },
  {
    // The order-money property interleaves every path that moves one order's money on both rails with
    // the bot's outbox: app code of both apps in one process, exactly these modules.
    files: ['tools/faults/test/order-money-owner.test.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [
            '^\\.\\./\\.\\./\\.\\./apps/backend/src/(botcommands/index|ledger/audit|payments/(deps|module|orders/create|card/notifications|reaper/reaper|refunds/console|refunds/star-refunds|stars/intake|stars/refunded)|reconciliation/(actions|job|star-source))\\.js$',
            '^\\.\\./\\.\\./\\.\\./apps/bot/src/(payments/(outbox\\.store|successful-payment|refunded-payment)|store/db)\\.js$',
            '^\\.\\./\\.\\./\\.\\./apps/backend/test/support/(star-platform|property-world|wallet)\\.js$',
          ],
          depConstraints: [
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', 'scope:emulator'] },
            { sourceTag: 'scope:faults', onlyDependOnLibsWithTags: ['scope:shared', 'scope:emulator'] },
          ],
        },
      ],
    },
  },
  {
    // One clock in the backend: time is read through the injected Clock (apps/backend/src/support/clock.ts).
    files: ['apps/backend/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Read the time from the injected Clock (support/clock.ts), not new Date().',
        },
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'Read the time from the injected Clock (support/clock.ts), not Date.now().',
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
