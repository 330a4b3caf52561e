import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SQL_ROOTS, homeOf, sqlStatements } from '../../check/sql-homes.mjs';
import { OWNED_ROOTS, OWNERSHIP_EXCEPTIONS, tableOwners, writesOf } from '../../check/table-owners.mjs';

/** The repository's root: the analysis is the one tools/check runs in CI, read per file here. */
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * The root (of `roots`) a linted file sits under, and its path inside it with forward slashes;
 * undefined outside every root. `repo` is where the roots are relative to (the rule's option in tests).
 * @param {string} filename
 * @param {string[]} roots
 * @param {string} repo
 */
function placeOf(filename, roots, repo) {
  const rel = path.relative(repo, filename).split(path.sep).join('/');
  for (const root of roots) {
    if (rel.startsWith(`${root}/`)) return { root, inRoot: rel.slice(root.length + 1) };
  }
  return undefined;
}

/** @param {import('eslint').Rule.RuleContext} context */
function optionsOf(context) {
  const [options] = /** @type {[{ repo?: string; roots?: string[] } | undefined]} */ (context.options);
  return { repo: options?.repo ?? REPO, roots: options?.roots };
}

const OPTIONS = [
  {
    type: 'object',
    properties: { repo: { type: 'string' }, roots: { type: 'array', items: { type: 'string' } } },
    additionalProperties: false,
  },
];

/**
 * `wordgame/sql-in-store-files`: SQL (kysely builder calls, kysely's `sql` tag, raw statement text
 * run through `executeQuery`/`runPrepared`, and better-sqlite3's `prepare`/`exec` of SQL text) only
 * in a module's store files, `ledger/`, `db/`, `*.table.ts` and tests, under the apps of
 * `SQL_ROOTS`. The same analysis as `tools/check/sql-homes.mjs`, shown where the code is written.
 * @type {import('eslint').Rule.RuleModule}
 */
export const sqlInStoreFiles = {
  meta: {
    type: 'problem',
    docs: { description: "SQL only in a module's store files" },
    schema: OPTIONS,
    messages: {
      outside:
        "{{call}} outside a store file: move it into a named function of its module's store file (docs/architecture.md#module-rules)",
    },
  },
  create(context) {
    const { repo, roots } = optionsOf(context);
    const place = placeOf(context.filename, roots ?? SQL_ROOTS, repo);
    if (place === undefined || homeOf(place.inRoot) !== 'code') return {};
    return {
      Program() {
        for (const statement of sqlStatements(context.filename, context.sourceCode.text)) {
          context.report({ loc: { line: statement.line, column: 0 }, messageId: 'outside', data: { call: statement.call } });
        }
      },
    };
  },
};

/** Owners per root, read once per lint process (a table file edited meanwhile needs a new run). */
const ownersCache = new Map();

/**
 * `wordgame/one-writer-per-table`: a module (top-level folder of an app's src in `OWNED_ROOTS`)
 * writes only the tables its `*.table.ts` files declare, save the listed `OWNERSHIP_EXCEPTIONS`;
 * a write whose table cannot be named or that no table file declares is refused too, and an
 * exception of this file that matches no write is reported so the list stays the truth. The same
 * analysis as `tools/check/table-owners.mjs`.
 * @type {import('eslint').Rule.RuleModule}
 */
export const oneWriterPerTable = {
  meta: {
    type: 'problem',
    docs: { description: 'A module writes only the tables its *.table.ts declares' },
    schema: OPTIONS,
    messages: {
      foreign: "{{how}}: {{module}} writes {{table}}, owned by {{owner}}: call a function of {{owner}}'s index.ts (pass the transaction)",
      unnamed: '{{how}}: the table it writes cannot be named (write it as a literal table name)',
      undeclared: "{{how}}: writes {{table}}, which no *.table.ts declares (declare it in its module's table file)",
      stale: 'exception for {{table}} matches no write: remove it from OWNERSHIP_EXCEPTIONS',
    },
  },
  create(context) {
    const { repo, roots } = optionsOf(context);
    const place = placeOf(context.filename, roots ?? OWNED_ROOTS, repo);
    if (place === undefined) return {};
    const { root, inRoot } = place;
    const parts = inRoot.split('/');
    if (/\.(test|spec)\.(m?ts|tsx)$/.test(inRoot) || (parts.length > 1 && parts[0] === 'db')) return {};
    const mine = parts.length > 1 ? (parts[0] ?? '') : '';
    return {
      Program() {
        const rootDir = path.join(repo, root);
        let owners = ownersCache.get(rootDir);
        if (owners === undefined) {
          owners = tableOwners(rootDir).owners;
          ownersCache.set(rootDir, owners);
        }
        const mineExceptions = OWNERSHIP_EXCEPTIONS.filter((e) => e.file === inRoot);
        const used = new Set();
        for (const w of writesOf(context.filename, context.sourceCode.text)) {
          const loc = { line: w.line, column: 0 };
          if (w.table === undefined) {
            context.report({ loc, messageId: 'unnamed', data: { how: w.how } });
            continue;
          }
          const owner = owners.get(w.table);
          if (owner === undefined) {
            context.report({ loc, messageId: 'undeclared', data: { how: w.how, table: w.table } });
          } else if (owner !== mine) {
            const exception = mineExceptions.find((e) => e.table === w.table);
            if (exception) used.add(exception);
            else context.report({ loc, messageId: 'foreign', data: { how: w.how, module: mine || 'a root file', table: w.table, owner } });
          }
        }
        for (const e of mineExceptions) {
          if (!used.has(e)) context.report({ loc: { line: 1, column: 0 }, messageId: 'stale', data: { table: e.table } });
        }
      },
    };
  },
};
