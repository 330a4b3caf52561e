#!/usr/bin/env node
/**
 * One writer per table: a table is written only by the module that owns it. A module is a
 * top-level folder of the backend's src; it owns the tables its `*.table.ts` files add to
 * `interface DB` (read from those files, not from a list). A write is
 * - a kysely builder call `.insertInto(t)`, `.updateTable(t)`, `.deleteFrom(t)`, `.mergeInto(t)`,
 *   `.replaceInto(t)` (a `'t as x'` alias or an array of names counts each table);
 * - a row lock taken to write: `.forUpdate()` / `.forNoKeyUpdate()` on a `selectFrom` chain (its
 *   table and joined tables, or those named by `.of(...)`), the chain followed through a variable
 *   it was built in;
 * - SQL text in any string or template (kysely's `sql` tag or a plain constant run raw):
 *   `insert into t`, `update t ... set`, `delete from t`, `merge into t`, `truncate t`, and `for update` /
 *   `for no key update` (the table of the `from` at the same depth, or those after `of`). CTE
 *   names defined in the same text are not tables.
 * A write of a table another module owns fails unless `OWNERSHIP_EXCEPTIONS` lists that file and
 * table; a write whose table cannot be named, or of a table no `*.table.ts` declares, fails too
 * (an undeclared table has no owner to check against). An exception that no longer matches a
 * write fails, so the list stays the truth. Tests (`*.test.ts`, `*.spec.ts`) and `db/` (migrations,
 * pool, schema) are not checked. Reads of other modules' tables are allowed (the read-only reports
 * and the joins that keep one statement): docs/architecture.md#module-rules lists them.
 *
 * Usage: node tools/check/table-owners.mjs [srcDir ...]   (without folders: OWNED_ROOTS)
 * Plain ESM; walks each file's syntax tree with the TypeScript compiler API (no type checker).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { sources } from './sources.mjs';

/** The apps whose modules own tables (the gateway and the bot hold no SQL: sql-homes checks that). */
export const OWNED_ROOTS = ['apps/backend/src'];

/**
 * The writes of another module's table that stay where they are, each with why. `file` is relative
 * to the src root; `table` the table it writes. These are the ledger's money statements: the ledger
 * is the one writer of money, and each statement is atomic by design (one statement, one round trip).
 */
export const OWNERSHIP_EXCEPTIONS = [
  {
    file: 'ledger/postings/credit.ts',
    table: 'orders',
    reason:
      'the credit statement marks the order paid in the same statement that writes the ledger row and the balance: a paid order without its credit (or the reverse) cannot exist',
  },
  {
    file: 'ledger/postings/credit.ts',
    table: 'payment_events',
    reason:
      "the credit statement records the order's `paid` event in the same statement as the credit, so the order's history matches the ledger",
  },
  {
    file: 'ledger/postings/buy.ts',
    table: 'buy_requests',
    reason:
      'the one-statement buy claims the Idempotency-Key and stores its result in the same statement that debits the wallet: a replay answers the stored result, never a second debit',
  },
];

/** Builder calls that write the table named by their first argument. */
const WRITE_CALLS = new Set(['insertInto', 'updateTable', 'deleteFrom', 'mergeInto', 'replaceInto']);
/** Builder calls that take a row lock to write. */
const LOCK_CALLS = new Set(['forUpdate', 'forNoKeyUpdate']);
/** Builder calls that add a table to a select's FROM. */
const FROM_CALLS = new Set([
  'selectFrom',
  'innerJoin',
  'leftJoin',
  'rightJoin',
  'fullJoin',
  'crossJoin',
  'innerJoinLateral',
  'leftJoinLateral',
  'crossJoinLateral',
]);

const TEST = /\.(test|spec)\.(m?ts|tsx)$/;
const TABLE_FILE = /\.table\.(m?ts|tsx)$/;
/** Top-level folders not checked: db/ holds the migrations, which write every table. */
const UNCHECKED_FOLDERS = new Set(['db']);

const IDENT = '"?((?:[a-z_][a-z0-9_$]*"?\\.)?"?[a-z_][a-z0-9_$]*)"?';
const SQL_WRITES = [
  new RegExp(`\\binsert\\s+into\\s+${IDENT}`, 'gi'),
  new RegExp(`\\bupdate\\s+(?:only\\s+)?${IDENT}(?:\\s+(?:as\\s+)?[a-z_][a-z0-9_]*)?\\s+set\\b`, 'gi'),
  new RegExp(`\\bdelete\\s+from\\s+(?:only\\s+)?${IDENT}`, 'gi'),
  new RegExp(`\\bmerge\\s+into\\s+(?:only\\s+)?${IDENT}`, 'gi'),
  new RegExp(`\\btruncate\\s+(?:table\\s+)?(?:only\\s+)?${IDENT}`, 'gi'),
];
const SQL_LOCK = /\bfor\s+(?:no\s+key\s+)?update\b(?:\s+of\s+([a-z_][a-z0-9_]*(?:\s*,\s*[a-z_][a-z0-9_]*)*))?/gi;
const SQL_CTE = /(?:\bwith(?:\s+recursive)?|,)\s*"?([a-z_][a-z0-9_]*)"?\s*(?:\([^()]*\)\s*)?as\s+(?:not\s+)?(?:materialized\s+)?\(/gi;
const SQL_FROM = /\b(?:from|join)\s+(?:only\s+)?"?([a-z_][a-z0-9_$.]*)"?(?:\s+(?:as\s+)?([a-z_][a-z0-9_]*))?/gi;

/** A table name without schema, quotes or alias (`public.orders as o` -> orders). */
function bareTable(name) {
  const noAlias = name.trim().split(/\s+/)[0] ?? '';
  const parts = noAlias.replace(/"/g, '').split('.');
  return (parts[parts.length - 1] ?? '').toLowerCase();
}

/** The module a path relative to its root belongs to: its top-level folder ('' for a file at the root). */
function moduleOf(rel) {
  const parts = rel.split(/[\\/]/);
  return parts.length > 1 ? (parts[0] ?? '') : '';
}

function parse(fileName, text) {
  return ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    true,
    fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
}

/**
 * Table -> owning module, from the `interface DB` blocks of the `*.table.ts` files under root; and
 * the problems (a table two modules declare).
 */
export function tableOwners(root) {
  const owners = new Map();
  const problems = [];
  for (const abs of sources(root)) {
    const rel = path.relative(root, abs);
    if (!TABLE_FILE.test(abs) || TEST.test(abs)) continue;
    const file = parse(abs, readFileSync(abs, 'utf8'));
    const visit = (node) => {
      if (ts.isInterfaceDeclaration(node) && node.name.text === 'DB') {
        for (const member of node.members) {
          if (!member.name || !(ts.isIdentifier(member.name) || ts.isStringLiteral(member.name))) continue;
          const table = member.name.text;
          const owner = moduleOf(rel);
          const seen = owners.get(table);
          if (seen !== undefined && seen !== owner)
            problems.push(`${path.join(root, rel)}: table ${table} is declared by ${seen} and by ${owner}: one owner per table`);
          else owners.set(table, owner);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return { owners, problems };
}

/** The table names a builder argument gives (`'t'`, `'t as x'`, `['a', 'b']`); undefined when it is not literal. */
function literalTables(arg) {
  if (arg === undefined) return undefined;
  if (ts.isStringLiteralLike(arg)) return [{ table: bareTable(arg.text), alias: arg.text.trim().split(/\s+as\s+/i)[1] }];
  if (ts.isArrayLiteralExpression(arg) && arg.elements.every((e) => ts.isStringLiteralLike(e))) {
    return arg.elements.map((e) => ({ table: bareTable(e.text), alias: e.text.trim().split(/\s+as\s+/i)[1] }));
  }
  return undefined;
}

/** The initializer of the latest declaration of `name` before `at` in the file (the query a variable was built from). */
function initializerOf(file, name, at) {
  let found;
  const visit = (node) => {
    if (node.pos >= at) return;
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === name && node.initializer)
      found = node.initializer;
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The tables a `.forUpdate()` call locks: its chain's FROM and joins (followed through a variable), narrowed by `.of(...)`. */
function lockedTables(file, call) {
  const from = [];
  let resolvable = true;
  let expr = call.expression.expression;
  const seenVars = new Set();
  for (;;) {
    if (ts.isCallExpression(expr) && ts.isPropertyAccessExpression(expr.expression)) {
      const name = expr.expression.name.text;
      if (FROM_CALLS.has(name)) {
        const tables = literalTables(expr.arguments[0]);
        if (tables === undefined) resolvable = false;
        else from.push(...tables);
      }
      expr = expr.expression.expression;
    } else if (ts.isParenthesizedExpression(expr) || ts.isNonNullExpression(expr) || ts.isAsExpression(expr)) {
      expr = expr.expression;
    } else if (ts.isIdentifier(expr) && !seenVars.has(expr.text)) {
      seenVars.add(expr.text);
      const init = initializerOf(file, expr.text, expr.pos);
      if (init === undefined) break;
      expr = init;
    } else break;
  }
  const parent = call.parent;
  if (parent && ts.isPropertyAccessExpression(parent) && parent.name.text === 'of' && parent.parent && ts.isCallExpression(parent.parent)) {
    const names = new Set();
    for (const arg of parent.parent.arguments) for (const t of literalTables(arg) ?? []) names.add(t.table);
    return {
      tables: from.filter((t) => names.has(t.table) || (t.alias !== undefined && names.has(t.alias))).map((t) => t.table),
      resolvable,
    };
  }
  return { tables: from.map((t) => t.table), resolvable: resolvable && from.length > 0 };
}

/** A string node's SQL text with each `${...}` blanked (newlines kept), so offsets map to source lines. */
function textOf(node, file) {
  const start = node.getStart(file);
  const chars = node.getText(file).split('');
  if (ts.isTemplateExpression(node)) {
    for (const span of node.templateSpans) {
      const from = span.expression.getFullStart() - start - 2;
      const to = span.literal.getStart(file) - start + 1;
      for (let i = Math.max(from, 0); i < to && i < chars.length; i += 1) if (chars[i] !== '\n') chars[i] = ' ';
    }
  }
  return chars.join('');
}

/** The table of the last `from`/`join` before `at` at the same parenthesis depth (the select a `for update` closes). */
function fromBefore(text, at) {
  let depth = 0;
  let start = 0;
  for (let i = at - 1; i >= 0; i -= 1) {
    const c = text[i];
    if (c === ')') depth += 1;
    else if (c === '(') {
      if (depth === 0) {
        start = i + 1;
        break;
      }
      depth -= 1;
    }
  }
  // keep only text at depth 0 of [start, at): nested parentheses blanked
  const flat = [];
  depth = 0;
  for (let i = start; i < at; i += 1) {
    const c = text[i];
    if (c === '(') depth += 1;
    flat.push(depth === 0 ? c : ' ');
    if (c === ')') depth -= 1;
  }
  const found = [];
  for (const m of flat.join('').matchAll(SQL_FROM)) found.push({ table: bareTable(m[1] ?? ''), alias: m[2] });
  return found;
}

/**
 * The writes of one source text: `{ line, table, how }`, `table` undefined when the check cannot
 * name it. `how` is what the report shows (`.updateTable('accounts')`, `.forUpdate() on accounts`,
 * `sql: update accounts`).
 */
export function writesOf(fileName, text) {
  const file = parse(fileName, text);
  const out = [];
  const lineAt = (pos) => file.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const name = node.expression.name.text;
      const line = lineAt(node.expression.name.getStart(file));
      if (WRITE_CALLS.has(name)) {
        const tables = literalTables(node.arguments[0]);
        const shown = node.arguments[0]?.getText(file) ?? '';
        if (tables === undefined) out.push({ line, table: undefined, how: `.${name}(${shown})` });
        else for (const t of tables) out.push({ line, table: t.table, how: `.${name}(${shown})` });
      } else if (LOCK_CALLS.has(name)) {
        const { tables, resolvable } = lockedTables(file, node);
        if (!resolvable) out.push({ line, table: undefined, how: `.${name}()` });
        for (const table of tables) out.push({ line, table, how: `.${name}() on ${table}` });
      }
    }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
      const start = node.getStart(file);
      const text = textOf(node, file);
      const ctes = new Set([...text.matchAll(SQL_CTE)].map((m) => (m[1] ?? '').toLowerCase()));
      for (const re of SQL_WRITES) {
        for (const m of text.matchAll(re)) {
          const table = bareTable(m[1] ?? '');
          if (table === 'set' || ctes.has(table)) continue;
          out.push({ line: lineAt(start + (m.index ?? 0)), table, how: `sql: ${m[0].replace(/\s+/g, ' ').toLowerCase()}` });
        }
      }
      for (const m of text.matchAll(SQL_LOCK)) {
        const from = fromBefore(text, m.index ?? 0);
        const of = m[1] ? new Set(m[1].split(',').map((s) => s.trim().toLowerCase())) : undefined;
        const locked = of ? from.filter((t) => of.has(t.table) || (t.alias !== undefined && of.has(t.alias.toLowerCase()))) : from;
        const line = lineAt(start + (m.index ?? 0));
        const how = m[0].replace(/\s+/g, ' ').toLowerCase();
        if (locked.length === 0) out.push({ line, table: undefined, how: `sql: ${how}` });
        for (const t of locked) if (!ctes.has(t.table)) out.push({ line, table: t.table, how: `sql: ${how} on ${t.table}` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out.sort((a, b) => a.line - b.line);
}

/**
 * Checks each root; answers the report lines and whether a module writes a table it does not own
 * (or one the check cannot name, or an exception went stale).
 */
export function check(roots, exceptions = OWNERSHIP_EXCEPTIONS) {
  const lines = [];
  let failures = 0;
  for (const root of roots) {
    const { owners, problems } = tableOwners(root);
    const bad = [...problems];
    const excepted = [];
    const used = new Set();
    let writes = 0;
    let files = 0;
    for (const abs of sources(root)) {
      const rel = path.relative(root, abs).split(path.sep).join('/');
      if (TEST.test(rel) || (rel.includes('/') && UNCHECKED_FOLDERS.has(moduleOf(rel)))) continue;
      files += 1;
      const mine = moduleOf(rel);
      for (const w of writesOf(abs, readFileSync(abs, 'utf8'))) {
        writes += 1;
        const where = `${path.join(root, rel)}:${w.line}`;
        if (w.table === undefined) {
          bad.push(`${where}: ${w.how}: the table it writes cannot be named (write it as a literal table name)`);
          continue;
        }
        const owner = owners.get(w.table);
        if (owner === undefined) {
          bad.push(`${where}: ${w.how}: writes ${w.table}, which no *.table.ts declares (declare it in its module's table file)`);
        } else if (owner !== mine) {
          const exception = exceptions.findIndex((e) => e.file === rel && e.table === w.table);
          if (exception >= 0) {
            used.add(exception);
            excepted.push(`${where}: ${w.how}: writes ${w.table} (owned by ${owner}), an exception: ${exceptions[exception].reason}`);
          } else {
            bad.push(
              `${where}: ${w.how}: ${mine || 'a root file'} writes ${w.table}, owned by ${owner}: call a function of ${owner}'s index.ts (pass the transaction)`,
            );
          }
        }
      }
    }
    exceptions.forEach((e, i) => {
      if (!used.has(i) && (existsSync(path.join(root, e.file)) || roots === OWNED_ROOTS)) {
        bad.push(`${path.join(root, e.file)}: exception for ${e.table} matches no write: remove it from OWNERSHIP_EXCEPTIONS`);
      }
    });
    failures += bad.length;
    lines.push(...bad, ...excepted);
    lines.push(
      `${root}: ${owners.size} table(s) owned, ${files} file(s) checked: ${writes} write(s), ${excepted.length} of another module's table by exception, ${bad.length} problem(s)`,
    );
  }
  return { lines, failed: failures > 0 };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const roots = args.length > 0 ? args : OWNED_ROOTS;
  for (const root of roots) {
    if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
      console.error(`table-owners: ${root} is not a folder`);
      process.exit(2);
    }
  }
  const { lines, failed } = check(roots);
  for (const line of lines) console.log(line);
  process.exit(failed ? 1 : 0);
}
