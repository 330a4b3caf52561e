import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tableOwners } from '../../check/table-owners.mjs';
import { exportedNames, modulesOf, openingSentence, renderModules } from '../docs/modules.js';

const repo = fileURLToPath(new URL('../../..', import.meta.url));

describe('the modules reference', () => {
  it("takes an entry's opening sentence from its first doc comment", () => {
    expect(openingSentence('/**\n * The ledger: the one writer of money. Only postings write.\n */\nexport {};\n')).toBe(
      'The ledger: the one writer of money.',
    );
    expect(openingSentence("import x from 'y';\n/** Not an opening comment. */\n")).toBe('');
    expect(openingSentence('/** Ends without a full stop */')).toBe('Ends without a full stop');
  });

  it('lists what an entry exports: named re-exports, declarations and star re-exports', () => {
    const text = [
      "export { a, b as c, type D } from './x.js';",
      "export * from './y.js';",
      'export const e = 1, f = 2;',
      'export function g() {}',
      'export interface H {}',
      'const hidden = 3;',
      '',
    ].join('\n');
    expect(exportedNames('index.ts', text)).toEqual(['a', 'c', 'D', "* from './y.js'", 'e', 'f', 'g', 'H']);
  });

  it('has every backend folder once, each table under its one owner, and the importers the graph has', () => {
    const root = join(repo, 'apps/backend/src');
    const modules = modulesOf(root);
    const folders = readdirSync(root).filter((n) => statSync(join(root, n)).isDirectory());
    expect(
      modules
        .filter((m) => m.name.endsWith('/'))
        .map((m) => m.name.slice(0, -1))
        .sort(),
    ).toEqual(folders.sort());
    const { owners } = tableOwners(root);
    const listed = modules.flatMap((m) => m.tables);
    expect(listed.sort()).toEqual([...owners.keys()].sort());
    const ledger = modules.find((m) => m.name === 'ledger/');
    expect(ledger?.tables).toContain('ledger_operations');
    expect(ledger?.importedBy).toContain('payments');
    expect(modules.find((m) => m.name === 'payments/')?.stores).toContain('payments/orders/orders.store.ts');
    expect(renderModules(repo)).toContain('## `apps/bot/src`');
  });
});
