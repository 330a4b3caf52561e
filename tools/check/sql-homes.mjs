#!/usr/bin/env node
/**
 * SQL only in a module's store files. SQL is a kysely query builder call (`.selectFrom(`,
 * `.insertInto(`, `.updateTable(`, `.deleteFrom(`, `.replaceInto(`, `.mergeInto(`, `.selectNoFrom(`,
 * and `.with(` / `.withRecursive(` on a db or transaction: a receiver named db/trx/tx, or the CTE
 * shape `with('name', (db) => ...)`) and any use of kysely's `sql` tag (`sql\`...\``,
 * `sql<T>\`...\``, `sql.raw(`, `sql.lit(`, ...), recognised only where `sql` is imported from
 * 'kysely' (a local `sql` is not SQL), and running statement text directly (`.executeQuery(`,
 * `CompiledQuery.raw(`, the backend's `runPrepared(` helper, and better-sqlite3's `.prepare(` / `.exec(`
 * of SQL text and `.pragma(`, as the bot writes them). Under each root it may appear only in:
 * - store files: one suffix, `*.store.ts` (`store.ts`, `repository.ts`, `*.repository.ts` are not);
 * - the top-level `ledger/` (the one writer of money tables: its statements are its store),
 *   `db/` (migrations, pool, schema composition) and `store/` (the bot's SQLite file) folders;
 * - `*.table.ts` files and tests (`*.test.ts`, `*.spec.ts`).
 * Each violation prints `file:line: <call> outside a store file` and the check exits 1; else it
 * prints, per root, the files checked and the store files and statements found. A statement is
 * counted once however many SQL calls it nests (a subquery, a CTE, a `sql` fragment in its chain).
 *
 * Usage: node tools/check/sql-homes.mjs [srcDir ...]   (without folders: SQL_ROOTS)
 * Plain ESM; walks each file's syntax tree with the TypeScript compiler API (no type checker).
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { sources } from './sources.mjs';

/**
 * The apps whose SQL must live in store files. The gateway and the bot hold no SQL: they are
 * checked so that a query there is refused too.
 */
export const SQL_ROOTS = ['apps/backend/src', 'apps/gateway/src', 'apps/bot/src'];

/** Query builder methods that start a statement whatever their receiver. */
const BUILDER_CALLS = new Set(['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto', 'selectNoFrom']);
/** Calls that run statement text directly, whatever their receiver. */
const RAW_METHOD_CALLS = new Set(['executeQuery']);
/** Functions that run statement text directly: the backend's prepared-statement helper (db/). */
const RAW_FUNCTION_CALLS = new Set(['runPrepared']);
/** better-sqlite3's calls that compile or run statement text: SQL when their first argument is SQL text. */
const SQLITE_CALLS = new Set(['prepare', 'exec']);
/** The opening keyword of SQL text (a string or template literal), so `regex.exec(s)` is not SQL. */
const SQL_TEXT =
  /^\s*(select|insert|update|delete|replace|create|alter|drop|pragma|with|begin|commit|rollback|savepoint|release|vacuum)\b/i;
/** CTE starters: SQL only on a db/transaction (Array.prototype.with shares the name). */
const WITH_CALLS = new Set(['with', 'withRecursive']);
/** Receiver names that are a Kysely instance or a transaction. */
const DB_NAME = /^(db|trx|tx|kysely)$|(Db|Trx|Kysely)$/;

const TEST = /\.(test|spec)\.(m?ts|tsx)$/;
/** The one suffix of a store file (`orders.store.ts`); `store.ts` and `repository.ts` are refused. */
const STORE_FILE = /\.store\.(m?ts|tsx)$/;
const TABLE_FILE = /\.table\.(m?ts|tsx)$/;
/**
 * Top-level folders whose every file is a SQL home: the backend's `ledger/` (the one writer of
 * money tables) and `db/` (migrations, pool, schema), and the bot's `store/` (its SQLite file).
 */
const HOME_FOLDERS = new Set(['ledger', 'db', 'store']);

/**
 * Where a file (path relative to its root) stands: 'store' (a store file, ledger/, db/, a table
 * file), 'test', or 'code' (where SQL is refused).
 */
export function homeOf(rel) {
  const parts = rel.split(/[\\/]/);
  const name = parts[parts.length - 1] ?? '';
  if (TEST.test(name)) return 'test';
  if (parts.length > 1 && HOME_FOLDERS.has(parts[0] ?? '')) return 'store';
  if (STORE_FILE.test(name) || TABLE_FILE.test(name)) return 'store';
  return 'code';
}

/** The local names kysely's `sql` is bound to in a file: `{ tags }` (sql, or an alias) and `{ namespaces }` (import * as k). */
function kyselyBindings(file) {
  const tags = new Set();
  const namespaces = new Set();
  for (const stmt of file.statements) {
    if (!ts.isImportDeclaration(stmt) || !ts.isStringLiteral(stmt.moduleSpecifier) || stmt.moduleSpecifier.text !== 'kysely') continue;
    const clause = stmt.importClause;
    if (!clause || clause.isTypeOnly || !clause.namedBindings) continue;
    if (ts.isNamespaceImport(clause.namedBindings)) {
      namespaces.add(clause.namedBindings.name.text);
      continue;
    }
    for (const el of clause.namedBindings.elements) {
      if (!el.isTypeOnly && (el.propertyName ?? el.name).text === 'sql') tags.add(el.name.text);
    }
  }
  return { tags, namespaces };
}

/** Whether an expression is kysely's `sql` in this file (`sql`, its alias, or `k.sql`). */
function isSqlTag(expr, { tags, namespaces }) {
  if (ts.isIdentifier(expr)) return tags.has(expr.text);
  return (
    ts.isPropertyAccessExpression(expr) &&
    expr.name.text === 'sql' &&
    ts.isIdentifier(expr.expression) &&
    namespaces.has(expr.expression.text)
  );
}

/** The last name of a receiver expression (`deps.db` -> db, `this.trx` -> trx), or undefined. */
function receiverName(expr) {
  if (ts.isIdentifier(expr)) return expr.text;
  if (ts.isPropertyAccessExpression(expr)) return expr.name.text;
  return undefined;
}

const oneLine = (text, max) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};

/** What a SQL node is, as the report names it (`.selectFrom('orders')`, `sql\`select 1\``, `sql.lit(`), or undefined when it is not SQL. */
function sqlCallOf(node, file, bindings) {
  if (ts.isTaggedTemplateExpression(node) && isSqlTag(node.tag, bindings)) {
    return `sql\`${oneLine(node.template.getText(file).slice(1, -1), 40)}\``;
  }
  if (!ts.isCallExpression(node)) return undefined;
  if (ts.isIdentifier(node.expression) && RAW_FUNCTION_CALLS.has(node.expression.text)) return `${node.expression.text}(`;
  if (!ts.isPropertyAccessExpression(node.expression)) return undefined;
  const callee = node.expression;
  const name = callee.name.text;
  if (isSqlTag(callee.expression, bindings)) return `sql.${name}(`;
  if (RAW_METHOD_CALLS.has(name)) return `.${name}(`;
  if (name === 'raw' && ts.isIdentifier(callee.expression) && callee.expression.text === 'CompiledQuery') return 'CompiledQuery.raw(';
  const first = node.arguments[0];
  const arg = first !== undefined && ts.isStringLiteralLike(first) ? first.getText(file) : '';
  if (BUILDER_CALLS.has(name)) return `.${name}(${arg})`;
  if (name === 'pragma' && first !== undefined && ts.isStringLiteralLike(first)) return `.pragma(${arg})`;
  if (SQLITE_CALLS.has(name) && first !== undefined && (ts.isStringLiteralLike(first) || ts.isTemplateExpression(first))) {
    const text = ts.isTemplateExpression(first) ? first.head.text : first.text;
    if (SQL_TEXT.test(text)) return `.${name}(\`${oneLine(text, 30)}\`)`;
  }
  if (WITH_CALLS.has(name)) {
    const second = node.arguments[1];
    const cteShape =
      first !== undefined &&
      ts.isStringLiteralLike(first) &&
      second !== undefined &&
      (ts.isArrowFunction(second) || ts.isFunctionExpression(second));
    const onDb = DB_NAME.test(receiverName(callee.expression) ?? '');
    if (cteShape || onDb) return `.${name}(${arg})`;
  }
  return undefined;
}

/** The whole expression chain a node heads or sits in (`db.selectFrom(...).where(...).execute()` for its selectFrom). */
function chainTop(node) {
  let top = node;
  for (;;) {
    const parent = top.parent;
    if (
      parent !== undefined &&
      ((ts.isPropertyAccessExpression(parent) && parent.expression === top) ||
        (ts.isCallExpression(parent) && parent.expression === top) ||
        (ts.isNonNullExpression(parent) && parent.expression === top) ||
        (ts.isParenthesizedExpression(parent) && parent.expression === top))
    ) {
      top = parent;
    } else {
      return top;
    }
  }
}

/**
 * The SQL statements of one source text, each with its 1-based line and what it is (its first SQL
 * call). A statement is the expression chain a SQL call sits in; SQL inside another statement's
 * chain (a subquery, a CTE, a `sql` fragment in its arguments) counts with that statement.
 */
export function sqlStatements(fileName, text) {
  const file = ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    true,
    fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const bindings = kyselyBindings(file);
  /** chain top -> its earliest SQL call */
  const tops = new Map();
  const visit = (node) => {
    const call = sqlCallOf(node, file, bindings);
    if (call !== undefined) {
      const top = chainTop(node);
      const start = node.getStart(file);
      const seen = tops.get(top);
      if (seen === undefined || start < seen.start) tops.set(top, { start, call });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  const found = [];
  for (const [top, first] of tops) {
    let nested = false;
    for (let up = top.parent; up !== undefined && !nested; up = up.parent) nested = tops.has(up);
    if (!nested) found.push({ line: file.getLineAndCharacterOfPosition(first.start).line + 1, call: first.call });
  }
  return found.sort((x, y) => x.line - y.line);
}

/**
 * Checks each root; answers the report lines and whether SQL was found outside its homes.
 * Violations name the file as root + relative path, so they open from the folder the check ran in.
 */
export function check(roots) {
  const lines = [];
  let outside = 0;
  for (const root of roots) {
    let files = 0;
    const stores = new Set();
    let statements = 0;
    let inTests = 0;
    const bad = [];
    for (const abs of sources(root)) {
      files += 1;
      const rel = path.relative(root, abs);
      const where = homeOf(rel);
      for (const s of sqlStatements(abs, readFileSync(abs, 'utf8'))) {
        if (where === 'store') {
          stores.add(rel);
          statements += 1;
        } else if (where === 'test') inTests += 1;
        else bad.push(`${path.join(root, rel)}:${s.line}: ${s.call} outside a store file`);
      }
    }
    outside += bad.length;
    lines.push(...bad);
    lines.push(
      `${root}: ${files} file(s) checked: ${statements} SQL statement(s) in ${stores.size} store file(s), ${inTests} in tests, ${bad.length} outside a store file`,
    );
  }
  if (outside > 0) {
    lines.push(`${outside} SQL statement(s) outside a store file: move each into a named function of its module's *.store.ts`);
  }
  return { lines, failed: outside > 0 };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const roots = args.length > 0 ? args : SQL_ROOTS;
  for (const root of roots) {
    if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
      console.error(`sql-homes: ${root} is not a folder`);
      process.exit(2);
    }
  }
  const { lines, failed } = check(roots);
  for (const line of lines) console.log(line);
  process.exit(failed ? 1 : 0);
}
