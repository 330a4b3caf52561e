import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { APP_ROOTS, featureGraph } from '../../check/feature-cycles.mjs';
import { sources } from '../../check/sources.mjs';
import { tableOwners } from '../../check/table-owners.mjs';
import { code, header, table } from './markdown.js';

/** What the page says of one module (a top-level folder or root file of an app's src). */
export interface ModuleFacts {
  name: string;
  entry: string;
  summary: string;
  exports: string[];
  tables: string[];
  stores: string[];
  importedBy: string[];
}

const TEST = /\.(test|spec)\.(m?ts|tsx)$/;

/** The first sentence of the entry's opening doc comment (`/** ... *\/` before its first statement). */
export function openingSentence(text: string): string {
  const match = /^\s*(?:\/\/[^\n]*\n\s*)*\/\*\*([\s\S]*?)\*\//.exec(text);
  if (!match) return '';
  const body = (match[1] ?? '')
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, ''))
    .join(' ')
    .replace(/\{@link ([^}]+)\}/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  const end = /[.!?](?=\s+[A-Z`(]|$)/.exec(body);
  return end ? body.slice(0, end.index + 1) : body;
}

/** The names an entry exports, in source order (`* from './x.js'` for a star re-export). */
export function exportedNames(fileName: string, text: string): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const names: string[] = [];
  const exported = (node: ts.Node) =>
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const stmt of file.statements) {
    if (ts.isExportDeclaration(stmt)) {
      if (stmt.exportClause && ts.isNamedExports(stmt.exportClause)) {
        for (const el of stmt.exportClause.elements) names.push(el.name.text);
      } else if (stmt.moduleSpecifier && ts.isStringLiteral(stmt.moduleSpecifier)) {
        names.push(`* from '${stmt.moduleSpecifier.text}'`);
      }
    } else if (exported(stmt)) {
      if (ts.isVariableStatement(stmt)) {
        for (const d of stmt.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
      } else if (
        (ts.isFunctionDeclaration(stmt) ||
          ts.isClassDeclaration(stmt) ||
          ts.isInterfaceDeclaration(stmt) ||
          ts.isTypeAliasDeclaration(stmt) ||
          ts.isEnumDeclaration(stmt)) &&
        stmt.name
      ) {
        names.push(stmt.name.text);
      }
    } else if (ts.isExportAssignment(stmt)) {
      names.push('default');
    }
  }
  return [...new Set(names)];
}

/** Every module of one app's src folder, with its entry, exports, tables, store files and importers. */
export function modulesOf(root: string): ModuleFacts[] {
  const graph = featureGraph(root);
  const { owners } = tableOwners(root);
  const importers = new Map<string, Set<string>>();
  for (const [from, edges] of graph) {
    for (const to of edges.keys()) {
      if (!importers.has(to)) importers.set(to, new Set());
      importers.get(to)?.add(from);
    }
  }
  const files = sources(root).map((f) => relative(root, f).split(sep).join('/'));
  return [...graph.keys()]
    .filter((name) => !TEST.test(name))
    .sort()
    .map((name) => {
      const isFolder = statSync(join(root, name), { throwIfNoEntry: false })?.isDirectory() === true;
      const entry = isFolder ? `${name}/index.ts` : name;
      const entryText = existsSync(join(root, entry)) ? readFileSync(join(root, entry), 'utf8') : '';
      return {
        name: isFolder ? `${name}/` : name,
        entry: existsSync(join(root, entry)) ? entry : '',
        summary: openingSentence(entryText),
        exports: entryText === '' ? [] : exportedNames(entry, entryText),
        tables: [...owners]
          .filter(([, owner]) => owner === name)
          .map(([t]) => t)
          .sort(),
        stores: isFolder ? files.filter((f) => f.startsWith(`${name}/`) && f.endsWith('.store.ts')) : [],
        importedBy: [...(importers.get(name) ?? [])].sort(),
      };
    });
}

/** docs/reference/modules.md: per app, each module's entry and opening sentence, exports, tables, store files, importers. */
export function renderModules(repo: string): string {
  const sections = APP_ROOTS.map((root) => {
    const modules = modulesOf(join(repo, root));
    const rows = modules.map((m) => [
      m.entry === '' ? code(m.name) : `[${code(m.name)}](../../${root}/${m.entry})`,
      m.summary,
      m.exports.map(code).join(', '),
      m.tables.map(code).join(', '),
      m.stores.map((s) => code(s.slice(s.indexOf('/') + 1))).join(', '),
      m.importedBy.map(code).join(', '),
    ]);
    return [
      `## ${code(root)}`,
      '',
      `${modules.length} modules. A folder's \`index.ts\` is its one entry; a root file is its own.`,
      '',
      table(['module', "what it is (its entry's opening sentence)", 'exports', 'tables it owns', 'store files', 'imported by'], rows),
      '',
    ].join('\n');
  });
  return [
    header(
      'Modules',
      "each app's import graph, its modules' entries and `*.table.ts` files (tools/check/feature-cycles.mjs, table-owners.mjs)",
    ),
    'Which module owns which table and who may write it: [module rules](../architecture.md#module-rules).',
    '',
    ...sections,
  ].join('\n');
}
